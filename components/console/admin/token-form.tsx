"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { inputStyles } from "@/components/ui/input";
import { ApiError, apiFetch, asSentence } from "../api";
import { fieldErrors, TOKEN_ROLE_OPTIONS, type CreatedToken, type TokenRoleName } from "./types";

const FIELDS = ["name", "role"] as const;
type Field = (typeof FIELDS)[number];

/** The API's field messages in this form's words (zod's generic "Too small …" becomes a plain request). */
function explain(field: Field, message: string) {
  if (field === "name")
    return /^(Too small|Invalid input)/.test(message)
      ? "Give the token a name that says where it is used."
      : /^Too big/.test(message)
        ? "At most 100 characters."
        : asSentence(message);
  return "Choose what the token may do: agent, worker or admin.";
}

/**
 * Creates an API token. The API checks everything (its 400 names the field, shown next to it; nothing is
 * written then); the created token goes to `onCreated` once and is not kept anywhere else.
 */
export function TokenForm({ onCreated }: { onCreated: (created: CreatedToken) => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [role, setRole] = useState<TokenRoleName>("worker");
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setErrors({});
    setFormError(null);
    try {
      const created = await apiFetch<CreatedToken>("/api/tokens", { method: "POST", body: { name, role } });
      setName("");
      onCreated(created);
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        const parsed = fieldErrors(e.message, FIELDS);
        const found: Partial<Record<Field, string>> = {};
        for (const f of FIELDS) if (parsed.fields[f]) found[f] = explain(f, parsed.fields[f]!);
        setErrors(found);
        if (parsed.other || !Object.keys(found).length) setFormError(`The token was not created: ${asSentence(parsed.other ?? e.message)}`);
        if (found.name) nameRef.current?.focus();
      } else {
        setFormError(`The token was not created: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`);
      }
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-labelledby={`${id}-title`} className="space-y-4" data-testid="token-form">
      <h3 id={`${id}-title`} className="text-sm font-semibold text-ink">
        Create a token
      </h3>
      <div>
        <label htmlFor={`${id}-name`} className="block text-sm font-medium text-ink">
          Name
        </label>
        <input
          ref={nameRef}
          id={`${id}-name`}
          value={name}
          maxLength={100}
          placeholder="Worker on build-host-2"
          autoComplete="off"
          onChange={(e) => {
            setName(e.target.value);
            if (errors.name) setErrors((x) => ({ ...x, name: undefined }));
          }}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? `${id}-name-error` : undefined}
          className={inputStyles("mt-1 max-w-md")}
        />
        {errors.name && (
          <p id={`${id}-name-error`} data-testid="field-error-name" className="mt-1 text-xs font-medium text-danger">
            {errors.name}
          </p>
        )}
      </div>
      <fieldset aria-describedby={errors.role ? `${id}-role-error` : undefined}>
        <legend className="block text-sm font-medium text-ink">Role</legend>
        <div className="mt-1 grid gap-2 sm:grid-cols-3">
          {TOKEN_ROLE_OPTIONS.map((option) => (
            <label
              key={option.value}
              className={cx(
                "flex cursor-pointer gap-2 rounded-md border p-3 text-sm has-focus-visible:outline-2 has-focus-visible:outline-accent",
                role === option.value ? "border-accent bg-accent-soft/60" : "border-line bg-surface hover:bg-canvas",
              )}
            >
              <input
                type="radio"
                name={`${id}-role`}
                value={option.value}
                checked={role === option.value}
                onChange={() => setRole(option.value)}
                className="mt-1 accent-accent"
              />
              <span>
                <span className="block font-medium text-ink">{option.label}</span>
                <span className="block text-xs leading-5 text-muted">{option.hint}</span>
              </span>
            </label>
          ))}
        </div>
        {errors.role && (
          <p id={`${id}-role-error`} className="mt-1 text-xs font-medium text-danger">
            {errors.role}
          </p>
        )}
      </fieldset>
      {formError && (
        <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-sm text-danger">
          {formError}
        </p>
      )}
      <Button type="submit" disabled={pending}>
        {pending ? "Creating…" : "Create token"}
      </Button>
    </form>
  );
}
