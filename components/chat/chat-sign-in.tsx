import { EntrySignIn } from "@/components/console/entry-sign-in";

/** The chat needs a signed-in person: the account sign-in first; an admin API token is the secondary option. */
export function ChatSignIn({ next = "/chat" }: { next?: string }) {
  return <EntrySignIn title="Sign in to chat" what="The chat talks to the demo agent on your behalf: ask, watch each step, press Stop." next={next} />;
}
