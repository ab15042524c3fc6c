"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { apiFetch, asSentence, type Session } from "./api";

/**
 * Console sign-in with an admin API token. POST /api/session checks the token and sets the httpOnly
 * session cookie; the page is then re-rendered on the server, which now finds the cookie.
 */
export function SignInForm() {
  const router = useRouter();
  const id = useId();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!token.trim()) {
      setError("Paste an admin token first.");
      return;
    }
    setPending(true);
    setError(null);
    try {
      await apiFetch<Session>("/api/session", { method: "POST", body: { token: token.trim() } });
      setToken("");
      router.refresh();
    } catch (e) {
      setError(asSentence((e as Error).message));
      setPending(false);
    }
  }

  return (
    <form method="post" onSubmit={submit} noValidate className="space-y-4">
      <div className="space-y-1.5">
        <label htmlFor={`${id}-token`} className="block text-sm font-medium text-ink">
          Admin token
        </label>
        <Input
          id={`${id}-token`}
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="stl_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : `${id}-hint`}
          className="font-mono"
        />
        <p id={`${id}-hint`} className="text-xs leading-5 text-muted">
          On a first start, <code className="font-mono">npm start</code> prints one (or uses <code className="font-mono">STOPLINE_BOOTSTRAP_TOKEN</code>).
        </p>
      </div>
      {error && (
        <p id={`${id}-error`} role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {error}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in…" : "Sign in with token"}
      </Button>
    </form>
  );
}
