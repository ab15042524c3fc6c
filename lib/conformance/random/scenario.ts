import type { Faults } from "../../demo/faults";
import { SERVICE_FAULTS } from "../../demo/control";
import type { ServiceName } from "../../demo/store";
import { scenarioRng, type Rng } from "./prng";

/**
 * One random scenario of the random conformance mode: a task with one to three calls of the demo tools, the
 * faults each demo service shows during it, when Stop is pressed (and pressed again), whether a person approves
 * the reversals Stopline proposes, and — in crash mode — which process is killed with SIGKILL when, and how soon
 * it comes back. Everything is drawn from the scenario's own seeded stream (prng.ts): `generateScenario(seed, i)`
 * is the same scenario on every run.
 */
export interface ScenarioCall {
  tool: string;
  input: unknown;
}
export interface Scenario {
  seed: number;
  index: number;
  calls: ScenarioCall[];
  /** Service-wide faults of the slot's demo world for the scenario (services not named have none). */
  faults: Partial<Record<ServiceName, Faults>>;
  /**
   * What the Stop's (and the crash's) moment counts from: the calls being scheduled, or the first call being claimed
   * by a worker (so that on a loaded machine the Stop still lands while calls run, not always before they start).
   */
  from: "scheduled" | "claimed";
  /** Milliseconds after `from` that Stop is pressed. */
  stopAtMs: number;
  /** A second Stop this many ms after the first (0 = at the same moment), or null. */
  secondStopAfterMs: number | null;
  /** After settlement, approve every reversal Stopline proposes (the compensation review items). */
  approve: boolean;
  /** kill -9 of the worker or the app (the engine's process) this many ms after the calls were scheduled; back after restartAfterMs. */
  crash: { target: "worker" | "app"; atMs: number; restartAfterMs: number } | null;
}

export const DEMO_TOOLS = [
  "shop.check_stock",
  "shop.create_order",
  "crm.create_record",
  "mailer.send_email",
  "reports.export_report",
  "inference.generate",
] as const;

const SERVICE_OF: Record<string, ServiceName> = {
  "shop.check_stock": "shop",
  "shop.create_order": "shop",
  "crm.create_record": "crm",
  "mailer.send_email": "mailer",
  "reports.export_report": "reports",
  "inference.generate": "inference",
};
export const serviceOf = (tool: string): ServiceName => SERVICE_OF[tool];

function inputFor(tool: string, rng: Rng): unknown {
  switch (tool) {
    case "shop.check_stock":
      return { sku: rng.pick(["chair", "desk", "lamp", "mug"]) };
    case "shop.create_order":
      return { items: [{ sku: rng.pick(["chair", "lamp", "mug"]), quantity: rng.int(1, 2) }] };
    case "crm.create_record":
      return { name: "Ada Lovelace", email: "ada@example.com" };
    case "mailer.send_email":
      return { to: "ada@example.com", subject: "random conformance", body: "a test message" };
    case "reports.export_report":
      return { rows: rng.int(5, 40), rowMs: rng.int(5, 25) };
    case "inference.generate":
      return { prompt: "say hello", words: rng.int(5, 30), wordMs: rng.int(5, 25) };
    default:
      throw new Error(`the random mode has no input for ${tool}`);
  }
}

/** Faults a service acts on (control.ts), each drawn on its own. */
function faultsFor(service: ServiceName, rng: Rng): Faults {
  const f: Faults = {};
  const acts = SERVICE_FAULTS[service];
  if (rng.chance(0.4)) f.latencyMs = rng.int(10, 300);
  if (acts.includes("acceptThenTimeout") && rng.chance(0.1)) f.acceptThenTimeout = true;
  if (acts.includes("cancelUnavailable") && rng.chance(0.15)) f.cancelUnavailable = true;
  if (acts.includes("ignoreCancellation") && rng.chance(0.15)) f.ignoreCancellation = true;
  if (acts.includes("failToRelease") && rng.chance(0.15)) f.failToRelease = true;
  if (acts.includes("someoneElseEdits") && rng.chance(0.1)) f.someoneElseEdits = true;
  return f;
}

export function generateScenario(seed: number, index: number, options: { tools?: readonly string[]; crash?: boolean } = {}): Scenario {
  const rng = scenarioRng(seed, index);
  const tools = options.tools?.length ? options.tools : DEMO_TOOLS;
  const count = tools.length === 1 ? 1 : rng.int(1, 3);
  const calls: ScenarioCall[] = [];
  for (let i = 0; i < count; i++) {
    let tool = rng.pick(tools);
    // At most one generation per task: the inference service keys generations by nothing, so the witness can
    // attribute them to a call only when there is one.
    if (tool === "inference.generate" && calls.some((c) => c.tool === tool)) tool = tools.find((t) => t !== "inference.generate") ?? tool;
    if (tool === "inference.generate" && calls.some((c) => c.tool === tool)) continue;
    calls.push({ tool, input: inputFor(tool, rng) });
  }
  const faults: Scenario["faults"] = {};
  for (const s of new Set(calls.map((c) => serviceOf(c.tool)))) faults[s] = faultsFor(s, rng);
  const from = rng.chance(0.2) ? ("scheduled" as const) : ("claimed" as const);
  const stopAtMs = rng.pick([0, rng.int(0, 50), rng.int(0, 300), rng.int(100, 900)]);
  const secondStopAfterMs = rng.chance(0.25) ? rng.pick([0, rng.int(0, 400)]) : null;
  const approve = rng.chance(0.5);
  const crash = options.crash
    ? { target: rng.chance(0.5) ? ("worker" as const) : ("app" as const), atMs: Math.max(0, stopAtMs + rng.int(-300, 600)), restartAfterMs: rng.int(0, 500) }
    : null;
  return { seed, index, calls, faults, from, stopAtMs, secondStopAfterMs, approve, crash };
}

/** The scenario in one line, for the findings table. */
export function describeScenario(s: Scenario): string {
  const faults = Object.entries(s.faults)
    .map(([svc, f]) => [svc, Object.entries(f!).map(([k, v]) => (v === true ? k : `${k}=${v}`))] as const)
    .filter(([, f]) => f.length)
    .map(([svc, f]) => `${svc}:${f.join("+")}`);
  return [
    s.calls.map((c) => c.tool).join(", "),
    `stop@${s.from === "claimed" ? "claim" : "schedule"}+${s.stopAtMs}ms${s.secondStopAfterMs !== null ? ` +2nd@${s.secondStopAfterMs}ms` : ""}`,
    faults.length ? faults.join(" ") : "no faults",
    s.crash ? `kill -9 ${s.crash.target}@${s.crash.atMs}ms back+${s.crash.restartAfterMs}ms` : "",
    s.approve ? "approve" : "",
  ]
    .filter(Boolean)
    .join(" · ");
}
