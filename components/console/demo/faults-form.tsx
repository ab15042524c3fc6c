"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { Input } from "@/components/ui/input";
import { apiFetch, asSentence } from "../api";
import { Switch } from "./switch";
import {
  DEMO_SERVICES_KEY,
  FAULT_TEXT,
  faultsOn,
  isBooleanFault,
  LATENCY_MAX_MS,
  noFaultsSentence,
  serviceNoun,
  type DemoFaultName,
  type DemoFaults,
  type DemoService,
  type DemoServiceFaults,
  type DemoServiceList,
} from "./types";

type BooleanFault = Exclude<DemoFaultName, "latencyMs">;
/** What the form shows: the latency as typed, and each switch. */
interface Draft {
  latency: string;
  on: Partial<Record<BooleanFault, boolean>>;
}

const toDraft = (faults: DemoFaults): Draft => ({
  latency: String(faults.latencyMs ?? 0),
  on: {
    acceptThenTimeout: !!faults.acceptThenTimeout,
    cancelUnavailable: !!faults.cancelUnavailable,
    ignoreCancellation: !!faults.ignoreCancellation,
    failToRelease: !!faults.failToRelease,
    someoneElseEdits: !!faults.someoneElseEdits,
  },
});

function latencyProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return "Enter a whole number of milliseconds (0 for none).";
  const n = Number(text);
  if (n > LATENCY_MAX_MS) return `At most ${LATENCY_MAX_MS.toLocaleString("en")} ms.`;
  return null;
}

/**
 * The faults to send: the form's values for the controls shown, and — unchanged — any other fault set
 * through the API (the service ignores those, but the console does not silently drop them). Off is left out.
 */
function toFaults(draft: Draft, saved: DemoFaults, shown: readonly DemoFaultName[]): DemoFaults {
  const faults: DemoFaults = {};
  for (const [name, value] of Object.entries(saved) as [DemoFaultName, unknown][]) {
    if (!shown.includes(name) && value) Object.assign(faults, { [name]: value });
  }
  for (const name of shown) {
    if (name === "latencyMs") {
      const ms = Number(draft.latency.trim());
      if (ms > 0) faults.latencyMs = ms;
    } else if (draft.on[name]) faults[name] = true;
  }
  return faults;
}

const sameFaults = (a: DemoFaults, b: DemoFaults) => faultsOn(a).sort().join("|") === faultsOn(b).sort().join("|");

const savedAt = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** The service's fault controls: switches and the latency, saved together through the API. */
export function FaultsForm({ service }: { service: DemoService }) {
  const id = useId();
  const queryClient = useQueryClient();
  const shown = service.applicableFaults;
  const saved = service.faults;
  const [draft, setDraft] = useState<Draft | null>(null);
  const [feedback, setFeedback] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const current = draft ?? toDraft(saved);
  const problem = shown.includes("latencyMs") ? latencyProblem(current.latency) : null;
  const next = problem ? null : toFaults(current, saved, shown);
  const dirty = draft !== null && (problem !== null || (next !== null && !sameFaults(next, saved)));
  const others = faultsOn(saved).filter((text) => !faultsOn(saved, shown).includes(text));
  const anyOn = faultsOn(saved).length > 0;

  const save = useMutation({
    mutationFn: (faults: DemoFaults) => apiFetch<DemoServiceFaults>(`/api/demo/services/${service.name}/faults`, { method: "POST", body: faults }),
    onSuccess: (result) => {
      queryClient.setQueryData<DemoServiceList>(
        DEMO_SERVICES_KEY,
        (data) => data && { ...data, services: data.services.map((s) => (s.name === result.service ? { ...s, faults: result.faults } : s)) },
      );
      setDraft(null);
      const on = faultsOn(result.faults);
      setFeedback({
        tone: "ok",
        text: `Saved at ${savedAt.format(new Date())}. ${on.length ? `Now on: ${on.join(", ")}.` : noFaultsSentence(service.name)}`,
      });
    },
    onError: (error) => setFeedback({ tone: "error", text: `Not saved: ${asSentence((error as Error).message)}` }),
  });

  const edit = (change: (d: Draft) => Draft) => {
    setDraft(change(current));
    if (feedback?.tone === "ok") setFeedback(null);
  };

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!next || save.isPending) return;
    setFeedback(null);
    save.mutate(next);
  }

  return (
    <form onSubmit={submit} noValidate aria-label={`Fault controls of the ${serviceNoun(service.name)}`} className="px-5 py-4">
      <ul className="divide-y divide-line/70">
        {shown.map((name) => {
          const text = FAULT_TEXT[name];
          const control = `${id}-${name}`;
          return (
            <li key={name} className="flex items-center justify-between gap-4 py-2.5 first:pt-0">
              <div className="min-w-0">
                <label htmlFor={control} className="block text-sm font-medium text-ink">
                  {text.label}
                </label>
                <p id={`${control}-hint`} className="text-xs leading-5 text-muted">
                  {text.hint}
                </p>
                {name === "latencyMs" && problem && (
                  <p id={`${control}-error`} className="text-xs leading-5 text-danger">
                    {problem}
                  </p>
                )}
              </div>
              {isBooleanFault(name) ? (
                <Switch
                  id={control}
                  aria-describedby={`${control}-hint`}
                  checked={!!current.on[name]}
                  disabled={save.isPending}
                  onCheckedChange={(checked) => edit((d) => ({ ...d, on: { ...d.on, [name]: checked } }))}
                />
              ) : (
                <div className="flex shrink-0 items-center gap-2">
                  <Input
                    id={control}
                    type="number"
                    inputMode="numeric"
                    min={0}
                    max={LATENCY_MAX_MS}
                    step={100}
                    value={current.latency}
                    disabled={save.isPending}
                    aria-invalid={problem ? true : undefined}
                    aria-describedby={problem ? `${control}-error` : `${control}-hint`}
                    onChange={(e) => edit((d) => ({ ...d, latency: e.target.value }))}
                    className="h-8 w-24 text-right tabular-nums"
                  />
                  <span className="text-sm text-muted" aria-hidden="true">
                    ms
                  </span>
                </div>
              )}
            </li>
          );
        })}
      </ul>

      {others.length > 0 && (
        <p className="mt-3 rounded-md bg-canvas px-3 py-2 text-xs leading-5 text-muted">
          Also set through the API, with no effect on this service: {others.join(", ")}. Saving keeps them; “Clear all faults” removes them.
        </p>
      )}

      <div className="mt-4 flex flex-wrap items-center gap-2">
        <Button type="submit" size="sm" disabled={!dirty || !next || save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        {dirty && !save.isPending && (
          <Button
            variant="ghost"
            size="sm"
            onClick={() => {
              setDraft(null);
              setFeedback(null);
            }}
          >
            Discard changes
          </Button>
        )}
        {anyOn && !dirty && (
          <Button
            variant="secondary"
            size="sm"
            className="ml-auto"
            disabled={save.isPending}
            onClick={() => {
              setFeedback(null);
              save.mutate({});
            }}
          >
            Clear all faults
          </Button>
        )}
      </div>
      <div className="mt-2 min-h-5 text-sm">
        {feedback?.tone === "error" ? (
          <p role="alert" className="rounded-md bg-danger-soft px-3 py-2 text-danger">
            {feedback.text}
          </p>
        ) : (
          <p role="status" className={cx(feedback ? "text-ok" : "text-muted")}>
            {dirty ? "Unsaved changes." : feedback?.text}
          </p>
        )}
      </div>
    </form>
  );
}
