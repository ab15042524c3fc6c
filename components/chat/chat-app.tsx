"use client";

import { ChatConversation } from "./chat-conversation";
import { ConversationList } from "./conversation-list";

/** The chat page: recent conversations beside the open one. */
export function ChatApp({ conversationId, isNew, readOnly = false }: { conversationId: string; isNew: boolean; readOnly?: boolean }) {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[14rem_minmax(0,1fr)]">
      <aside className="hidden self-start lg:sticky lg:top-6 lg:block lg:max-h-[calc(100vh-3rem)] lg:overflow-y-auto">
        <ConversationList current={conversationId} />
      </aside>
      <ChatConversation key={conversationId} conversationId={conversationId} isNew={isNew} readOnly={readOnly} />
    </div>
  );
}
