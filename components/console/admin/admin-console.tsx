"use client";

import { useCallback, useState } from "react";
import { AccountsSection } from "./accounts-section";
import { HistorySection } from "./history-section";
import { TokensSection } from "./tokens-section";
import type { Viewer } from "./types";

/**
 * Accounts & tokens (admin only; the API refuses everyone else): people's accounts and machine clients'
 * API tokens, and the history of every change to them. One polite live region announces every outcome (created, revoked, refused and why).
 */
export function AdminConsole({ viewer, signedInAs }: { viewer: Viewer; signedInAs: string }) {
  const [announcement, setAnnouncement] = useState("");
  // The same text twice in a row is still announced: clear, then set on the next frame.
  const announce = useCallback((message: string) => {
    setAnnouncement("");
    requestAnimationFrame(() => setAnnouncement(message));
  }, []);

  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Accounts &amp; tokens</h1>
        <p className="text-sm text-muted">
          Who can sign in, with which role, which machine clients hold an API token, and the history of every change to them. Signed in as{" "}
          <span className="text-ink">{signedInAs}</span>.
        </p>
        <p aria-live="polite" aria-atomic="true" data-testid="announcer" className="sr-only">
          {announcement}
        </p>
      </div>
      <AccountsSection viewer={viewer} announce={announce} />
      <TokensSection announce={announce} />
      <HistorySection />
    </div>
  );
}
