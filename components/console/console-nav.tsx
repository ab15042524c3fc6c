import Link from "next/link";
import { cx } from "@/components/ui/cx";

const LINKS = [
  { key: "tasks", href: "/console", label: "Tasks" },
  { key: "review", href: "/console/review", label: "Review queue" },
  { key: "metrics", href: "/console/metrics", label: "Metrics" },
  { key: "audit", href: "/audit", label: "Audit" },
  { key: "demo", href: "/console/demo", label: "Demo services" },
] as const;

export type ConsolePage = (typeof LINKS)[number]["key"];

/** The console's pages (tasks, review queue, metrics, audit, demo services), above each page's header. */
export function ConsoleNav({ current }: { current: ConsolePage | null }) {
  return (
    <nav aria-label="Console" className="mb-6">
      <ul className="flex flex-wrap items-center gap-1 text-sm">
        {LINKS.map((link) => (
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
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
