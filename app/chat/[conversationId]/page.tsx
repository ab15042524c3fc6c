import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ChatApp } from "@/components/chat/chat-app";
import { ChatSignIn } from "@/components/chat/chat-sign-in";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { allows, Roles } from "@/lib/auth/permissions";
import { conversationIsOthers, ownerIdOf } from "@/lib/auth/ownership";
import { db } from "@/lib/db/client";

export const metadata: Metadata = { title: "Chat" };
export const dynamic = "force-dynamic";

export default async function ConversationPage({ params }: { params: Promise<{ conversationId: string }> }) {
  const { conversationId } = await params;
  // The API accepts conversation ids of 1–200 characters.
  if (!conversationId || conversationId.length > 200) notFound();
  const principal = await getSignedInPrincipal();
  if (!principal) return <ChatSignIn next={`/chat/${encodeURIComponent(conversationId)}`} />;
  // Another person's conversation is not found (the API answers 404 for its tasks and messages too).
  if (await conversationIsOthers(db(), principal, conversationId)) notFound();
  return (
    <QueryProvider>
      <ChatApp conversationId={conversationId} isNew={false} readOnly={!allows(Roles.ownTasks, principal.role)} ownerId={ownerIdOf(principal)} />
    </QueryProvider>
  );
}
