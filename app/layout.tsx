import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Stopline", template: "%s · Stopline" },
  description: "The cancellation ledger and cleanup console for AI agents.",
};

const NAV = [
  { href: "/chat", label: "Chat" },
  { href: "/console", label: "Console" },
  { href: "/api-docs", label: "API docs" },
  { href: "/account", label: "Account" }, // signed out: /account sends you to /sign-in
] as const;

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request: its Content-Security-Policy carries a fresh nonce (proxy.ts), which
  // Next.js adds to its scripts — a page rendered at build time would have none and its scripts would be blocked.
  await connection();
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-surface focus:px-3 focus:py-2 focus:text-sm focus:shadow"
        >
          Skip to content
        </a>
        <header className="border-b border-line bg-surface">
          {/* On a narrow phone (or with wider fonts) the nav wraps onto a second line rather than widening the page. */}
          <div className="mx-auto flex min-h-14 max-w-6xl items-center justify-between px-4 py-1 sm:px-6">
            <Link href="/" className="flex shrink-0 items-center gap-2 rounded-md text-base font-semibold tracking-tight text-ink">
              <span aria-hidden="true" className="inline-block size-3 rounded-sm bg-stop" />
              Stopline
            </Link>
            <nav aria-label="Main" className="min-w-0">
              <ul className="flex flex-wrap items-center justify-end text-sm sm:gap-1">
                {NAV.map((item) => (
                  <li key={item.href}>
                    <Link
                      href={item.href}
                      className="whitespace-nowrap rounded-md px-1.5 py-2 text-muted transition-colors hover:bg-canvas hover:text-ink sm:px-3"
                    >
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
        </header>
        <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-10 sm:px-6">
          {children}
        </main>
      </body>
    </html>
  );
}
