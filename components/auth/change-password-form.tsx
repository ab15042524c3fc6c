"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { inputStyles } from "@/components/ui/input";
import { explainAuthAnswer, postToBetterAuth } from "./better-auth-fetch";

/** Better Auth's limits for a password (its defaults; the server enforces them again). */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

const FIELDS = ["current", "next", "confirm"] as const;
type Field = (typeof FIELDS)[number];
type Errors = Partial<Record<Field, string>>;

/** What can be said before asking the server: an empty field, a short password, a mismatch. */
function checkLocally(current: string, next: string, confirm: string): Errors {
  const errors: Errors = {};
  if (!current) errors.current = "Enter your current password.";
  if (next.length < MIN_PASSWORD_LENGTH) errors.next = `Use at least ${MIN_PASSWORD_LENGTH} characters (this one has ${next.length}).`;
  else if (next.length > MAX_PASSWORD_LENGTH) errors.next = `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  else if (current && next === current) errors.next = "The new password is the same as the current one; choose a different one.";
  if (!errors.next && confirm !== next) errors.confirm = "The two new passwords do not match; type the new password again.";
  return errors;
}

/**
 * Changes the signed-in person's password through Better Auth's own endpoint (POST /api/auth/change-password,
 * which checks the current password against its scrypt hash and stores the new hash). `revokeOtherSessions`
 * ends every other session of the account in the same transaction; this browser gets a fresh session cookie
 * and stays signed in. Nothing is written when the current password is wrong or the new one too short.
 */
export function ChangePasswordForm({ email }: { email: string }) {
  const router = useRouter();
  const id = useId();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [show, setShow] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<{ text: string; signIn: boolean } | null>(null);
  const [status, setStatus] = useState("");
  const [pending, setPending] = useState(false);
  const refs = { current: useRef<HTMLInputElement>(null), next: useRef<HTMLInputElement>(null), confirm: useRef<HTMLInputElement>(null) };

  function showErrors(found: Errors) {
    setErrors(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) refs[first].current?.focus();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    setFormError(null);
    setStatus("");
    const local = checkLocally(current, next, confirm);
    if (Object.keys(local).length) {
      showErrors(local);
      return;
    }
    setErrors({});
    setPending(true);
    setStatus("Changing your password…");
    try {
      const answer = await postToBetterAuth("/change-password", { currentPassword: current, newPassword: next, revokeOtherSessions: true });
      if (answer.ok) {
        setCurrent("");
        setNext("");
        setConfirm("");
        setShow(false);
        setStatus("Password changed; every other browser was signed out.");
        router.refresh(); // the session count below is now 0
        return;
      }
      setStatus("");
      if (answer.code === "INVALID_PASSWORD") showErrors({ current: "That is not your current password. Nothing was changed." });
      else if (answer.code === "PASSWORD_TOO_SHORT") showErrors({ next: `Use at least ${MIN_PASSWORD_LENGTH} characters.` });
      else if (answer.code === "PASSWORD_TOO_LONG") showErrors({ next: `Use at most ${MAX_PASSWORD_LENGTH} characters.` });
      else if (answer.code === "CREDENTIAL_ACCOUNT_NOT_FOUND") setFormError({ text: "This account has no password to change. Ask an admin.", signIn: false });
      else setFormError({ text: explainAuthAnswer(answer, "Changing the password"), signIn: answer.status === 401 });
    } catch {
      setStatus("");
      setFormError({ text: "Could not reach Stopline; check your connection and try again. Your password was not changed.", signIn: false });
    } finally {
      setPending(false);
    }
  }

  const clear = (field: Field) => setErrors((x) => (x[field] ? { ...x, [field]: undefined } : x));
  const describedBy = (field: Field, hint?: string) => [errors[field] ? `${id}-${field}-error` : null, hint ?? null].filter(Boolean).join(" ") || undefined;
  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} data-testid={`field-error-${field}`} className="mt-1 text-xs font-medium text-danger">
        {errors[field]}
      </p>
    ) : null;
  const field = (name: Field, label: string, value: string, set: (v: string) => void, autoComplete: string, hint?: string) => (
    <div>
      <label htmlFor={`${id}-${name}`} className="block text-sm font-medium text-ink">
        {label}
      </label>
      <input
        ref={refs[name]}
        id={`${id}-${name}`}
        name={name === "current" ? "current-password" : name === "next" ? "new-password" : "confirm-password"}
        type={show ? "text" : "password"}
        value={value}
        autoComplete={autoComplete}
        // Read-only, not disabled, while the request runs: a disabled field cannot take the focus that an error moves to it.
        readOnly={pending}
        onChange={(e) => {
          set(e.target.value);
          clear(name);
        }}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={describedBy(name, hint ? `${id}-${name}-hint` : undefined)}
        className={inputStyles("mt-1")}
      />
      {hint && !errors[name] && (
        <p id={`${id}-${name}-hint`} className="mt-1 text-xs text-muted">
          {hint}
        </p>
      )}
      {fieldError(name)}
    </div>
  );

  return (
    <form method="post" onSubmit={submit} noValidate aria-labelledby={`${id}-title`} aria-busy={pending || undefined} data-testid="change-password-form">
      <h2 id={`${id}-title`} className="text-base font-semibold text-ink">
        Change password
      </h2>
      <p className="mt-1 text-sm leading-6 text-muted">Changing it signs you out of every other browser; this one stays signed in.</p>
      {/* Lets password managers file the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
      <div className="mt-4 space-y-4">
        {field("current", "Current password", current, setCurrent, "current-password")}
        <div className="grid gap-4 sm:grid-cols-2">
          {field("next", "New password", next, setNext, "new-password", `At least ${MIN_PASSWORD_LENGTH} characters.`)}
          {field("confirm", "Confirm new password", confirm, setConfirm, "new-password")}
        </div>
        <label className="flex w-fit items-center gap-2 text-sm text-muted">
          <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} disabled={pending} className="size-4 accent-accent" />
          Show passwords
        </label>
      </div>
      {formError && (
        <p role="alert" data-testid="change-password-error" className="mt-4 rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {formError.text}{" "}
          {formError.signIn && (
            <Link href="/sign-in?next=/account" className="font-medium underline">
              Sign in again
            </Link>
          )}
        </p>
      )}
      <Button type="submit" className="mt-5" disabled={pending}>
        {pending ? "Changing password…" : "Change password"}
      </Button>
      {/* Its own line, one line high even when empty: the announcement never moves the page. */}
      <p
        role="status"
        aria-live="polite"
        aria-atomic="true"
        data-testid="change-password-status"
        className={status.startsWith("Password changed") ? "mt-3 min-h-5 text-sm font-medium text-ok" : "mt-3 min-h-5 text-sm text-muted"}
      >
        {status}
      </p>
    </form>
  );
}
