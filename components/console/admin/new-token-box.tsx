"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import type { CreatedToken } from "./types";

/**
 * The new token, shown this once: Stopline stores only its hash, so neither this page nor the API can show it
 * again. It lives only in this component's props — gone on reload or when dismissed.
 */
export function NewTokenBox({ created, onDone, announce }: { created: CreatedToken; onDone: () => void; announce: (message: string) => void }) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "select" | null>(null);
  useEffect(() => heading.current?.focus(), [created.token]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied("yes");
      announce("Token copied to the clipboard.");
    } catch {
      // No clipboard access (permissions, an insecure origin): select it for Ctrl+C instead.
      field.current?.select();
      setCopied("select");
      announce("The clipboard is not available here; the token is selected, press Ctrl+C to copy it.");
    }
  }

  return (
    <Card as="section" aria-labelledby={`${id}-title`} data-testid="new-token" className="border-warn/50 bg-warn-soft/40">
      <h3 id={`${id}-title`} ref={heading} tabIndex={-1} className="text-base font-semibold text-ink focus-visible:outline-none">
        Copy the new token “{created.record.name}” now
      </h3>
      <p id={`${id}-note`} className="mt-1 text-sm leading-6 text-ink">
        <strong>You will not see it again.</strong> Stopline keeps only a hash of it. If it is lost, revoke it and create another.
      </p>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row">
        <label htmlFor={`${id}-token`} className="sr-only">
          The new {created.record.role} token
        </label>
        <input
          ref={field}
          id={`${id}-token`}
          data-testid="new-token-value"
          readOnly
          value={created.token}
          onFocus={(e) => e.currentTarget.select()}
          aria-describedby={`${id}-note`}
          spellCheck={false}
          className="h-10 min-w-0 flex-1 rounded-md border border-line bg-surface px-3 font-mono text-sm text-ink shadow-xs focus-visible:border-accent"
        />
        <Button onClick={() => void copy()} data-testid="copy-token">
          {copied === "yes" ? "Copied" : "Copy"}
        </Button>
      </div>
      <div className="mt-3 flex flex-wrap items-center justify-between gap-2 text-xs text-muted">
        <span>
          Use it as <code className="font-mono text-ink">Authorization: Bearer {created.record.prefix}…</code> — role {created.record.role}.
        </span>
        <Button variant="secondary" size="sm" onClick={onDone} data-testid="dismiss-token">
          Done — I have stored it
        </Button>
      </div>
    </Card>
  );
}
