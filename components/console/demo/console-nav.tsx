import Link from "next/link";
import { cx } from "@/components/ui/cx";

const LINKS = [
  { key: "tasks", href: "/console", label: "Tasks" },
  { key: "demo", href: "/console/demo", label: "Demo services" },
] as const;

/** The console's two pages: the task list and the demo services' fault controls. Small, above each page's header. */
export function ConsoleNav({ current }: { current: (typeof LINKS)[number]["key"] }) {
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
