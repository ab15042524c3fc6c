import Link from "next/link";
import { Badge, Card, CardDescription, CardTitle, buttonStyles } from "@/components/ui";

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

export default function HomePage() {
  return (
    <div className="space-y-12">
      <section aria-labelledby="intro" className="max-w-3xl space-y-5">
        <Badge tone="accent">Cancellation ledger</Badge>
        <h1 id="intro" className="text-3xl font-semibold tracking-tight text-ink sm:text-4xl">
          Stopline
        </h1>
        <p className="text-lg leading-8 text-muted">
          Stopline is the cancellation ledger and cleanup console for AI agents. When a person presses{" "}
          <strong className="font-semibold text-ink">Stop</strong> while an agent&apos;s asynchronous tool calls are in
          flight, Stopline makes sure that no new work starts, tells every in-flight child to stop through the mechanism
          that child actually supports, finds out what each child really did, verifies that its resources were released,
          routes what cannot be undone to a human, and tells the person — plainly and truthfully — what stopped, what
          completed and what is still uncertain.
        </p>
        <div className="flex flex-wrap gap-3">
          <Link href="/console" className={buttonStyles()}>
            Open the console
          </Link>
          <Link href="/api-docs" className={buttonStyles({ variant: "secondary" })}>
            Read the API docs
          </Link>
        </div>
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
