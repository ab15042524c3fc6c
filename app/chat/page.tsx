import type { Metadata } from "next";
import { randomUUID } from "node:crypto";
import { ChatApp } from "@/components/chat/chat-app";
import { ChatSignIn } from "@/components/chat/chat-sign-in";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { allows, Roles } from "@/lib/auth/permissions";
import { ownerIdOf } from "@/lib/auth/ownership";

export const metadata: Metadata = { title: "Chat" };

// Who is signed in is decided per request, from the session cookie; each visit starts a new conversation.
export const dynamic = "force-dynamic";

export default async function ChatPage() {
  const principal = await getSignedInPrincipal();
  if (!principal) return <ChatSignIn />;
  return (
    <QueryProvider>
      <ChatApp conversationId={randomUUID()} isNew readOnly={!allows(Roles.ownTasks, principal.role)} ownerId={ownerIdOf(principal)} />
    </QueryProvider>
  );
}
