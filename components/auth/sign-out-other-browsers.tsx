"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { explainAuthAnswer, postToBetterAuth } from "./better-auth-fetch";

const browsers = (n: number) => `${n} other browser${n === 1 ? "" : "s"}`;

/**
 * "Sign out of all other browsers": Better Auth's POST /api/auth/revoke-other-sessions deletes every session of
 * this account except this browser's (the rows go, so those browsers are signed out on their next request).
 * `otherSessions` is the count the server saw when it rendered the page; after the call the page re-renders.
 */
export function SignOutOtherBrowsers({ otherSessions }: { otherSessions: number }) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [status, setStatus] = useState("");
  const [error, setError] = useState<string | null>(null);

  async function revoke() {
    setPending(true);
    setError(null);
    setStatus("Signing out of your other browsers…");
    try {
      const answer = await postToBetterAuth("/revoke-other-sessions", {});
      if (!answer.ok) {
        setStatus("");
        setError(explainAuthAnswer(answer, "Signing out of the other browsers"));
        return;
      }
      setStatus(otherSessions > 0 ? `Signed out of ${browsers(otherSessions)}; only this one is signed in now.` : "Done: only this browser is signed in.");
      router.refresh();
    } catch {
      setStatus("");
      setError("Could not reach Stopline; check your connection and try again. No browser was signed out.");
    } finally {
      setPending(false);
    }
  }

  return (
    <div data-testid="other-sessions">
      <p className="text-sm leading-6 text-muted" data-testid="other-sessions-count">
        {otherSessions === 0 ? (
          "You are not signed in anywhere else."
        ) : (
          <>
            This account is also signed in on <strong className="text-ink">{browsers(otherSessions)}</strong> (or devices).
          </>
        )}
      </p>
      <Button variant="secondary" className="mt-3" onClick={revoke} disabled={pending}>
        {pending ? "Signing out…" : "Sign out of all other browsers"}
      </Button>
      <p role="status" aria-live="polite" aria-atomic="true" data-testid="other-sessions-status" className="mt-3 min-h-5 text-sm text-muted">
        {status}
      </p>
      {error && (
        <p role="alert" className="mt-3 rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {error}
        </p>
      )}
    </div>
  );
}
