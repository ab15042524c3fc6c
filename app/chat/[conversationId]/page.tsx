import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ChatApp } from "@/components/chat/chat-app";
import { ChatSignIn } from "@/components/chat/chat-sign-in";
import { QueryProvider } from "@/components/console/query-provider";
import { getConsolePrincipal } from "@/lib/auth/current-principal";

export const metadata: Metadata = { title: "Chat" };
export const dynamic = "force-dynamic";

export default async function ConversationPage({ params }: { params: Promise<{ conversationId: string }> }) {
  const { conversationId } = await params;
  // The API accepts conversation ids of 1–200 characters.
  if (!conversationId || conversationId.length > 200) notFound();
  if (!(await getConsolePrincipal())) return <ChatSignIn />;
  return (
    <QueryProvider>
      <ChatApp conversationId={conversationId} isNew={false} />
    </QueryProvider>
  );
}
