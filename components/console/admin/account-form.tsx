"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { inputStyles } from "@/components/ui/input";
import { ApiError, apiFetch, asSentence } from "../api";
import { fieldErrors, PERSON_ROLE_OPTIONS, type Account, type PersonRoleName } from "./types";

const FIELDS = ["name", "email", "role", "password"] as const;
type Field = (typeof FIELDS)[number];

/** The API's field messages in this form's words; its own ("must be at least 8 characters") are kept. */
function explain(field: Field, message: string) {
  if (field === "name")
    return /^(Too small|Invalid input)/.test(message) ? "Enter the person's name." : /^Too big/.test(message) ? "At most 100 characters." : asSentence(message);
  if (field === "email") return /^Too big/.test(message) ? "At most 254 characters." : "Enter an e-mail address, e.g. olga@example.com.";
  if (field === "role") return "Choose a role.";
  return /^Invalid input/.test(message) ? "Enter an initial password." : `The password ${message}.`;
}

/**
 * Creates a person's account with an initial password (hashed by Better Auth on the server).
 * The API validates (400 names the field, shown next to it) and refuses a taken address (409, shown under
 * the e-mail field); nothing is written in either case.
 */
export function AccountForm({ onCreated }: { onCreated: (account: Account) => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<PersonRoleName>("user");
  const [password, setPassword] = useState("");
  const [showPassword, setShowPassword] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const refs = {
    name: useRef<HTMLInputElement>(null),
    email: useRef<HTMLInputElement>(null),
    role: useRef<HTMLSelectElement>(null),
    password: useRef<HTMLInputElement>(null),
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setErrors({});
    setFormError(null);
    try {
      const account = await apiFetch<Account>("/api/accounts", { method: "POST", body: { name, email, role, password } });
      setName("");
      setEmail("");
      setPassword("");
      setRole("user");
      setShowPassword(false);
      onCreated(account);
    } catch (e) {
      const found: Partial<Record<Field, string>> = {};
      if (e instanceof ApiError && e.status === 400) {
        const parsed = fieldErrors(e.message, FIELDS);
        for (const f of FIELDS) if (parsed.fields[f]) found[f] = explain(f, parsed.fields[f]!);
        if (parsed.other || !Object.keys(found).length) setFormError(`The account was not created: ${asSentence(parsed.other ?? e.message)}`);
      } else if (e instanceof ApiError && e.status === 409 && e.details.field === "email") {
        found.email = asSentence(e.message);
      } else {
        setFormError(`The account was not created: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`);
      }
      setErrors(found);
      const first = FIELDS.find((f) => found[f]);
      if (first) refs[first].current?.focus();
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
  const roleHint = PERSON_ROLE_OPTIONS.find((o) => o.value === role)?.hint;

  return (
    <form onSubmit={submit} noValidate aria-labelledby={`${id}-title`} className="space-y-4" data-testid="account-form">
      <h3 id={`${id}-title`} className="text-sm font-semibold text-ink">
        Create an account
      </h3>
      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-name`} className="block text-sm font-medium text-ink">
            Name
          </label>
          <input
            ref={refs.name}
            id={`${id}-name`}
            value={name}
            maxLength={100}
            autoComplete="off"
            placeholder="Olga Operator"
            onChange={(e) => {
              setName(e.target.value);
              clear("name");
            }}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={describedBy("name")}
            className={inputStyles("mt-1")}
          />
          {fieldError("name")}
        </div>
        <div>
          <label htmlFor={`${id}-email`} className="block text-sm font-medium text-ink">
            E-mail
          </label>
          <input
            ref={refs.email}
            id={`${id}-email`}
            type="email"
            value={email}
            maxLength={254}
            autoComplete="off"
            placeholder="olga@example.com"
            onChange={(e) => {
              setEmail(e.target.value);
              clear("email");
            }}
            aria-invalid={errors.email ? true : undefined}
            aria-describedby={describedBy("email")}
            className={inputStyles("mt-1")}
          />
          {fieldError("email")}
        </div>
        <div>
          <label htmlFor={`${id}-role`} className="block text-sm font-medium text-ink">
            Role
          </label>
          <select
            ref={refs.role}
            id={`${id}-role`}
            value={role}
            onChange={(e) => {
              setRole(e.target.value as PersonRoleName);
              clear("role");
            }}
            aria-invalid={errors.role ? true : undefined}
            aria-describedby={describedBy("role", `${id}-role-hint`)}
            className={inputStyles("mt-1")}
          >
            {PERSON_ROLE_OPTIONS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          <p id={`${id}-role-hint`} className="mt-1 text-xs text-muted">
            {roleHint}
          </p>
          {fieldError("role")}
        </div>
        <div>
          <label htmlFor={`${id}-password`} className="block text-sm font-medium text-ink">
            Initial password
          </label>
          <div className="mt-1 flex gap-2">
            <input
              ref={refs.password}
              id={`${id}-password`}
              type={showPassword ? "text" : "password"}
              value={password}
              maxLength={128}
              autoComplete="new-password"
              onChange={(e) => {
                setPassword(e.target.value);
                clear("password");
              }}
              aria-invalid={errors.password ? true : undefined}
              aria-describedby={describedBy("password", `${id}-password-hint`)}
              className={inputStyles()}
            />
            <Button variant="secondary" onClick={() => setShowPassword((s) => !s)} aria-pressed={showPassword} aria-controls={`${id}-password`}>
              {showPassword ? "Hide" : "Show"}
            </Button>
          </div>
          <p id={`${id}-password-hint`} className="mt-1 text-xs text-muted">
            At least 8 characters. Give it to the person over a separate channel.
          </p>
          {fieldError("password")}
        </div>
      </div>
      {formError && (
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {formError}
        </p>
      )}
      <Button type="submit" disabled={pending}>
        {pending ? "Creating…" : "Create account"}
      </Button>
    </form>
  );
}
