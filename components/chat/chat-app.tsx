"use client";

import { ChatConversation } from "./chat-conversation";
import { ConversationList } from "./conversation-list";

/** The chat page: recent conversations beside the open one. */
export function ChatApp({ conversationId, isNew, readOnly = false, ownerId }: { conversationId: string; isNew: boolean; readOnly?: boolean; ownerId: string }) {
  // A reader (support) stops nothing here; the person who talks to the agent may stop all of their own requests.
  const stopAllOf = readOnly ? undefined : ownerId;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[14rem_minmax(0,1fr)]">
      <aside className="hidden self-start lg:sticky lg:top-6 lg:block lg:max-h-[calc(100vh-3rem)] lg:overflow-y-auto">
        <ConversationList current={conversationId} stopAllOf={stopAllOf} />
      </aside>
      {/* On a phone the history is a drawer above the conversation (the aside is hidden below lg). */}
      <details className="group rounded-card border border-line bg-surface lg:hidden" data-testid="conversations-drawer">
        <summary className="flex cursor-pointer items-center justify-between px-4 py-2.5 text-sm font-medium text-ink">
          Your conversations
          <span aria-hidden="true" className="text-muted transition-transform group-open:rotate-180">
            ▾
          </span>
        </summary>
        <div className="max-h-[60vh] overflow-y-auto border-t border-line px-3 py-2">
          <ConversationList current={conversationId} stopAllOf={stopAllOf} />
        </div>
      </details>
      <ChatConversation key={conversationId} conversationId={conversationId} isNew={isNew} readOnly={readOnly} />
    </div>
  );
}
