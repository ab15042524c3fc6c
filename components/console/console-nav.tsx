import Link from "next/link";
import { cx } from "@/components/ui/cx";
import type { Capabilities } from "@/lib/auth/capabilities";
import { EscalationCount, ReviewCount } from "./nav-counts";

/** Every console page; `shownIf` names the capability a page needs (the page itself checks it too). */
const LINKS = [
  { key: "tasks", href: "/console", label: "Tasks" },
  { key: "review", href: "/console/review", label: "Review queue" },
  { key: "escalations", href: "/console/escalations", label: "Escalations", shownIf: "seeEscalations" },
  { key: "incidents", href: "/console/incidents", label: "Incidents", shownIf: "seeEscalations" },
  { key: "metrics", href: "/console/metrics", label: "Metrics" },
  { key: "audit", href: "/audit", label: "Audit" },
  { key: "demo", href: "/console/demo", label: "Demo services", shownIf: "administer" },
  { key: "admin", href: "/console/admin", label: "Accounts & tokens", shownIf: "administer" },
] as const satisfies readonly { key: string; href: string; label: string; shownIf?: keyof Capabilities }[];

export type ConsolePage = (typeof LINKS)[number]["key"];

/**
 * The console's pages the signed-in principal may open, above each page's header, with what waits: the review
 * queue's open items and how many are overdue, the escalation channels that are failing. Inside a QueryProvider.
 */
export function ConsoleNav({ current, can }: { current: ConsolePage | null; can: Capabilities }) {
  const links = LINKS.filter((link) => !("shownIf" in link) || can[link.shownIf]);
  return (
    <nav aria-label="Console" className="mb-6">
      <ul className="flex flex-wrap items-center gap-1 text-sm">
        {links.map((link) => (
          <li key={link.key}>
            <Link
              href={link.href}
              aria-current={link.key === current ? "page" : undefined}
              className={cx(
                "inline-flex rounded-full px-3 py-1 transition-colors",
                link.key === current ? "bg-accent-soft font-medium text-accent-strong" : "text-muted hover:bg-surface hover:text-ink",
              )}
            >
              {link.label}
              {link.key === "review" && <ReviewCount />}
              {link.key === "escalations" && <EscalationCount />}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
