import type { z } from "zod";
import type { DemoFaultNameSchema, DemoFaultsSchema, DemoServiceFaultsSchema, DemoServiceListSchema, DemoWitnessSchema } from "@/lib/api/schemas";

// Types only: the console trusts its own API's contract and ships no zod to the browser.
export type DemoServiceList = z.output<typeof DemoServiceListSchema>;
export type DemoService = DemoServiceList["services"][number];
export type DemoFaults = z.output<typeof DemoFaultsSchema>;
export type DemoFaultName = z.output<typeof DemoFaultNameSchema>;
export type DemoServiceFaults = z.output<typeof DemoServiceFaultsSchema>;
export type DemoWitness = z.output<typeof DemoWitnessSchema>;
export type DemoWitnessEntry = DemoWitness["witness"][number];

export const DEMO_SERVICES_KEY = ["demo-services"] as const;
export const witnessKey = (service: string) => ["demo-witness", service] as const;

/** How often the witness logs (and, less often, the faults in force) are re-read. */
export const WITNESS_REFRESH_MS = 3_000;
export const FAULTS_REFRESH_MS = 10_000;
export const LATENCY_MAX_MS = 60_000;

const TITLES: Record<string, string> = { shop: "Shop", crm: "CRM", mailer: "Mailer", reports: "Reports", inference: "Inference" };
/** A service's name as a heading ("Shop", "CRM"). */
export const serviceTitle = (name: string) => TITLES[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
/** … and inside a sentence ("the shop", "the CRM"). */
export const serviceNoun = (name: string) => (name === "crm" ? "CRM" : name);
/** "No faults: the reports service behaves normally." — the service, not its name as a plural noun. */
export const noFaultsSentence = (name: string) => `No faults: the ${serviceNoun(name)} service behaves normally.`;

type BooleanFault = Exclude<DemoFaultName, "latencyMs">;

/** What each fault control does, in the words the console uses. */
export const FAULT_TEXT: Record<DemoFaultName, { label: string; hint: string; short: string }> = {
  latencyMs: { label: "Latency", hint: "Added to every answer.", short: "latency" },
  acceptThenTimeout: { label: "Accept, then time out", hint: "The action commits, but the caller never gets an answer.", short: "accept then time out" },
  cancelUnavailable: { label: "Cancel endpoint unavailable", hint: "Cancel and withdraw requests answer 503.", short: "cancel endpoint unavailable" },
  ignoreCancellation: { label: "Ignore cancellation", hint: "Cancel is acknowledged (202), but the work carries on.", short: "ignore cancellation" },
  failToRelease: {
    label: "Fail to release",
    hint: "Releasing does nothing: the export keeps its lock and temp file, the mailer keeps its draft.",
    short: "fail to release",
  },
  someoneElseEdits: {
    label: "Someone else edits the record",
    hint: "Right after a record is created, other staff edit it: its version moves on.",
    short: "someone else edits",
  },
};

export const isBooleanFault = (name: DemoFaultName): name is BooleanFault => name !== "latencyMs";

/** The faults that are on, in words ("cancel endpoint unavailable, latency 500 ms"). */
export function faultsOn(faults: DemoFaults, only?: readonly DemoFaultName[]): string[] {
  const names = (Object.keys(FAULT_TEXT) as DemoFaultName[]).filter((n) => !only || only.includes(n));
  const on: string[] = [];
  for (const name of names) {
    if (name === "latencyMs") {
      if (faults.latencyMs) on.push(`latency ${faults.latencyMs} ms`);
    } else if (faults[name]) on.push(FAULT_TEXT[name].short);
  }
  return on;
}
