"use client";

import { useId, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { inputStyles } from "@/components/ui/input";
import { cx } from "@/components/ui/cx";
import { ApiError, apiFetch, asSentence } from "../api";
import { fieldErrors, type Channel } from "./types";

const FIELDS = ["name", "kind", "url", "secret"] as const;
type Field = (typeof FIELDS)[number];
type Kind = "webhook" | "slack";

/**
 * The API's messages for a field, in the words of this form. Zod's generic messages ("Too small: expected
 * string to have >=1 characters") are rephrased; the API's own (e.g. "at least 16 characters") are kept.
 */
function explain(field: Field, message: string): string {
  if (field === "name")
    return /^(Too small|Invalid input)/.test(message) ? "Give the channel a name." : /^Too big/.test(message) ? "At most 100 characters." : asSentence(message);
  if (field === "url") return "Enter an http(s) URL, e.g. https://hooks.example.com/stopline.";
  if (field === "kind") return "Choose a webhook or a Slack-compatible channel.";
  return asSentence(message);
}

/** 32 random bytes as hex: a secret for the receiver to verify Stopline-Signature with. */
function randomSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Adds a channel. Nothing is checked here that the API checks: its 400 names the fields, shown next to each
 * one (and the first is focused); nothing is written then. The secret is sent once and never shown again.
 */
export function ChannelForm({ onCreated }: { onCreated: (channel: Channel, secretShown: boolean) => void }) {
  const id = useId();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const refs = {
    name: useRef<HTMLInputElement>(null),
    kind: useRef<HTMLInputElement>(null),
    url: useRef<HTMLInputElement>(null),
    secret: useRef<HTMLInputElement>(null),
  };

  const clear = (field: Field) => setErrors((e) => (e[field] ? { ...e, [field]: undefined } : e));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setErrors({});
    setFormError(null);
    try {
      const body = { name, kind, url: url.trim(), ...(secret ? { secret } : {}) };
      const channel = await apiFetch<Channel>("/api/escalation-channels", { method: "POST", body });
      onCreated(channel, !!secret);
      setName("");
      setUrl("");
      setSecret("");
      setKind("webhook");
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        const parsed = fieldErrors(e.message, FIELDS);
        const found: Partial<Record<Field, string>> = {};
        for (const f of FIELDS) if (parsed.fields[f]) found[f] = explain(f, parsed.fields[f]);
        setErrors(found);
        if (parsed.other || !Object.keys(found).length) setFormError(`The channel was not added: ${asSentence(parsed.other ?? e.message)}`);
        const first = FIELDS.find((f) => found[f]);
        if (first) refs[first].current?.focus();
      } else {
        setFormError(`The channel was not added: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`);
      }
    } finally {
      setPending(false);
    }
  }

  const describedBy = (field: Field, hint?: string) => [errors[field] ? `${id}-${field}-error` : null, hint ?? null].filter(Boolean).join(" ") || undefined;
  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} data-testid={`field-error-${field}`} className="mt-1 text-xs font-medium text-danger">
        {errors[field]}
      </p>
    ) : null;

  return (
    <form onSubmit={submit} noValidate aria-labelledby={`${id}-title`} className="space-y-4" data-testid="channel-form">
      <h3 id={`${id}-title`} className="text-sm font-semibold text-ink">
        Add a channel
      </h3>
      <fieldset>
        <legend className="block text-sm font-medium text-ink">Kind</legend>
        <div className="mt-1 grid grid-cols-2 gap-1 rounded-md border border-line bg-canvas p-1" aria-describedby={describedBy("kind")}>
          {(["webhook", "slack"] as const).map((k, i) => (
            <label
              key={k}
              className={cx(
                "flex cursor-pointer flex-col rounded px-3 py-1.5 text-sm has-focus-visible:outline-2 has-focus-visible:outline-accent",
                kind === k ? "bg-surface text-ink shadow-xs ring-1 ring-line" : "text-muted hover:text-ink",
              )}
            >
              <input
                ref={i === 0 ? refs.kind : undefined}
                type="radio"
                name={`${id}-kind`}
                value={k}
                checked={kind === k}
                onChange={() => {
                  setKind(k);
                  clear("kind");
                  clear("secret");
                }}
                className="sr-only"
              />
              <span className="font-medium">{k === "webhook" ? "Webhook" : "Slack-compatible"}</span>
              <span className="text-xs text-muted">{k === "webhook" ? "Signed JSON to your endpoint" : "An incoming-webhook message"}</span>
            </label>
          ))}
        </div>
        {fieldError("kind")}
      </fieldset>
      <div>
        <label htmlFor={`${id}-name`} className="block text-sm font-medium text-ink">
          Name
        </label>
        <input
          ref={refs.name}
          id={`${id}-name`}
          value={name}
          maxLength={100}
          placeholder={kind === "slack" ? "#on-call" : "On-call pager"}
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
        <label htmlFor={`${id}-url`} className="block text-sm font-medium text-ink">
          URL
        </label>
        <input
          ref={refs.url}
          id={`${id}-url`}
          type="url"
          inputMode="url"
          value={url}
          spellCheck={false}
          placeholder={kind === "slack" ? "https://hooks.slack.com/services/T…/B…/…" : "https://hooks.example.com/stopline"}
          onChange={(e) => {
            setUrl(e.target.value);
            clear("url");
          }}
          aria-invalid={errors.url ? true : undefined}
          aria-describedby={describedBy("url", `${id}-url-hint`)}
          className={inputStyles("mt-1 font-mono")}
        />
        {fieldError("url")}
        <p id={`${id}-url-hint`} className="mt-1 text-xs text-muted">
          {kind === "slack"
            ? "An incoming-webhook URL. It is a credential: after saving, the console shows only its start and end."
            : "Stopline POSTs JSON here, retrying with backoff until it answers 2xx. A query string is never shown again."}
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-secret`} className="block text-sm font-medium text-ink">
          Shared secret <span className="font-normal text-muted">{kind === "webhook" ? "(required, 16 characters or more)" : "(optional)"}</span>
        </label>
        <div className="mt-1 flex gap-2">
          <input
            ref={refs.secret}
            id={`${id}-secret`}
            value={secret}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => {
              setSecret(e.target.value);
              clear("secret");
            }}
            aria-invalid={errors.secret ? true : undefined}
            aria-describedby={describedBy("secret", `${id}-secret-hint`)}
            className={inputStyles("font-mono")}
          />
          <Button
            variant="secondary"
            onClick={() => {
              setSecret(randomSecret());
              clear("secret");
            }}
          >
            Generate
          </Button>
        </div>
        {fieldError("secret")}
        <p id={`${id}-secret-hint`} className="mt-1 text-xs text-muted">
          Every delivery carries <code className="font-mono">Stopline-Signature: t=…,v1=…</code>, an HMAC-SHA256 of the timestamp and body with this secret.
          Copy it to your receiver now: it is never shown again.
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Adding…" : "Add channel"}
        </Button>
        <div aria-live="assertive" aria-atomic="true" className="min-w-0 flex-1">
          {formError && (
            <p role="alert" data-testid="channel-form-error" className="rounded-md bg-danger-soft px-2.5 py-1.5 text-sm text-danger">
              {formError}
            </p>
          )}
        </div>
      </div>
    </form>
  );
}
