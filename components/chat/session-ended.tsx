"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { chatFetch } from "./api";

/** The session ended (token revoked, cookie expired): say so, and offer to sign in again. */
export function SessionEnded() {
  const router = useRouter();
  const queryClient = useQueryClient();
  return (
    <Card role="alert" className="mx-auto max-w-lg px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-ink">Your session has ended</h2>
      <p className="mt-2 text-sm text-muted">
        The token was revoked or the session expired. Nothing the agent was doing changed because of it; sign in again to see where it stands.
      </p>
      <Button
        size="sm"
        className="mt-4"
        onClick={async () => {
          // Clear the stale cookie first, so the server renders the sign-in form.
          await chatFetch("/api/session", { method: "DELETE" }).catch(() => {});
          queryClient.clear();
          router.refresh();
        }}
      >
        Sign in again
      </Button>
    </Card>
  );
}
