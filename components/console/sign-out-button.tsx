"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { signOutEverywhereInThisBrowser } from "@/components/auth/account-sign-out";

/** Ends the account session (Better Auth) and clears the admin-token cookie; the server then renders the sign-in form. */
export function SignOutButton() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);

  async function signOut() {
    setPending(true);
    setFailed(false);
    try {
      await signOutEverywhereInThisBrowser();
      queryClient.clear();
      router.refresh();
    } catch {
      setFailed(true);
      setPending(false);
    }
  }

  return (
    <>
      <Button variant="secondary" size="sm" onClick={signOut} disabled={pending}>
        {pending ? "Signing out…" : "Sign out"}
      </Button>
      {failed && (
        <span role="alert" className="text-xs text-danger">
          Sign-out failed; try again.
        </span>
      )}
    </>
  );
}
