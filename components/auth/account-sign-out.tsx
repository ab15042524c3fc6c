"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";

/** Ends this browser's sessions: the account's (Better Auth, deleted from the database) and any admin-token cookie. */
export async function signOutEverywhereInThisBrowser() {
  const json = { "content-type": "application/json" };
  const results = await Promise.all([
    fetch("/api/auth/sign-out", { method: "POST", credentials: "same-origin", headers: json, body: "{}" }),
    fetch("/api/session", { method: "DELETE", credentials: "same-origin" }),
  ]);
  // Without a session Better Auth answers 4xx: nothing to end there.
  if (results.some((r) => r.status >= 500)) throw new Error("sign-out failed");
}

export function AccountSignOut({ to = "/sign-in", label = "Sign out" }: { to?: string; label?: string }) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  return (
    <div className="flex items-center gap-3">
      <Button
        variant="secondary"
        size="sm"
        disabled={pending}
        onClick={async () => {
          setPending(true);
          setFailed(false);
          try {
            await signOutEverywhereInThisBrowser();
            router.replace(to);
            router.refresh();
          } catch {
            setFailed(true);
            setPending(false);
          }
        }}
      >
        {pending ? "Signing out…" : label}
      </Button>
      {failed && (
        <span role="alert" className="text-xs text-danger">
          Sign-out failed; try again.
        </span>
      )}
    </div>
  );
}
