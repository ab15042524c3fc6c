import Link from "next/link";
import { Badge, Card, CardDescription, CardTitle, buttonStyles } from "@/components/ui";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { CONSOLE_ROLES } from "@/lib/auth/permissions";

const AUDIENCES = [
  {
    who: "End users",
    what: "Stop is instant. Each child's live state is shown, and the final message is true: what stopped, what completed, what is still uncertain.",
  },
  {
    who: "Operators",
    what: "A review queue for compensations of high-risk actions and for uncertain or orphaned items, each with a deadline before it escalates.",
  },
  {
    who: "Agent developers",
    what: "Wrap each tool once — how it is cancelled, inspected and compensated — through the SDK, the HTTP API or MCP.",
  },
] as const;

// Who is signed in decides which way in comes first.
export const dynamic = "force-dynamic";

export default async function HomePage() {
  const principal = await getSignedInPrincipal();
  const chat = { href: "/chat", label: "Open the chat" };
  const consoleEntry = { href: "/console", label: "Open the console" };
  // A person with the user role chats; everyone else who signs in works in the console; signed out, the chat first.
  const entries = principal && CONSOLE_ROLES.includes(principal.role) ? [consoleEntry, chat] : principal ? [chat] : [chat, consoleEntry];
  return (
    <div className="space-y-12">
      <section aria-labelledby="intro" className="max-w-3xl space-y-5">
        <Badge tone="accent">Cancellation ledger</Badge>
        <h1 id="intro" className="text-3xl font-semibold tracking-tight text-ink sm:text-4xl">
          Stopline
        </h1>
        <p className="text-lg leading-8 text-muted">
          Stopline is the cancellation ledger and cleanup console for AI agents. When a person presses <strong className="font-semibold text-ink">Stop</strong>{" "}
          while an agent&apos;s asynchronous tool calls are in flight, Stopline makes sure that no new work starts, tells every in-flight child to stop through
          the mechanism that child actually supports, finds out what each child really did, verifies that its resources were released, routes what cannot be
          undone to a human, and tells the person — plainly and truthfully — what stopped, what completed and what is still uncertain.
        </p>
        <div className="flex flex-wrap gap-3" data-testid="entry-links">
          {entries.map((e, i) => (
            <Link key={e.href} href={e.href} className={buttonStyles({ variant: i === 0 ? "primary" : "secondary" })}>
              {e.label}
            </Link>
          ))}
          <Link href="/api-docs" className={buttonStyles({ variant: "ghost" })}>
            Read the API docs
          </Link>
        </div>
        <p className="text-sm text-muted">
          People who ask the agent for something use the{" "}
          <Link href="/chat" className="text-ink underline">
            chat
          </Link>
          ; operators, support and admins use the{" "}
          <Link href="/console" className="text-ink underline">
            console
          </Link>
          .
        </p>
      </section>

      <section aria-labelledby="who">
        <h2 id="who" className="sr-only">
          Who it is for
        </h2>
        <ul className="grid gap-4 md:grid-cols-3">
          {AUDIENCES.map((a) => (
            <Card as="li" key={a.who}>
              <CardTitle>{a.who}</CardTitle>
              <CardDescription>{a.what}</CardDescription>
            </Card>
          ))}
        </ul>
      </section>
    </div>
  );
}
