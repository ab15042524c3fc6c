"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { safeNextPath } from "@/lib/auth/safe-next";

/**
 * Sign-in with an account (e-mail + password) through Better Auth: POST /api/auth/sign-in/email sets the
 * httpOnly session cookie (the session itself is a row in the database). Then on to `next`, or to the
 * place the role works in: the chat for a user, the console for everyone else.
 */
export function PasswordSignInForm({ next }: { next?: string }) {
  const router = useRouter();
  const id = useId();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!email.trim() || !password) {
      setError("Enter your e-mail address and password.");
      return;
    }
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: email.trim(), password }),
      });
      const data = (await response.json().catch(() => null)) as { user?: { role?: string }; message?: string } | null;
      if (!response.ok) {
        setError(
          response.status === 401
            ? "That e-mail address and password do not match an account."
            : (data?.message ?? `Sign-in failed (HTTP ${response.status}).`),
        );
        setPending(false);
        return;
      }
      const role = data?.user?.role ?? "user";
      router.replace(safeNextPath(next) ?? (role === "user" ? "/chat" : "/console"));
      router.refresh();
    } catch {
      setError("Could not reach Stopline; check your connection and try again.");
      setPending(false);
    }
  }

  return (
    <form method="post" onSubmit={submit} noValidate className="space-y-4">
      <div className="space-y-1.5">
        <label htmlFor={`${id}-email`} className="block text-sm font-medium text-ink">
          Email
        </label>
        <Input
          id={`${id}-email`}
          name="email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={error ? true : undefined}
        />
      </div>
      <div className="space-y-1.5">
        <label htmlFor={`${id}-password`} className="block text-sm font-medium text-ink">
          Password
        </label>
        <Input
          id={`${id}-password`}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
      </div>
      {error && (
        <p id={`${id}-error`} role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {error}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
