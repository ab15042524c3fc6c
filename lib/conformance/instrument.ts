import type { ToolContext, ToolDefinition } from "../tools/contract";
import type { OutcomeKind } from "../outcomes/child-outcome";
import type { ConformanceCase } from "./cases";
import { FAILING, Verdict, type ServiceSays } from "./verdict";

/**
 * The stop-conformance kit's pure parts, shared by the in-process kit (run-conformance.ts, `npm run conformance`)
 * and the SDK's (lib/sdk/conformance.ts, for tool authors against a Stopline server): how a tool is held at a
 * point of its run or given a fault, what a case's result is, and the table. No server code: the SDK imports it.
 */

export interface CaseResult {
  case: ConformanceCase;
  title: string;
  /** The child's outcome as Stopline reported it (the summary's words), or why the case did not run. */
  stopline: string;
  reported: OutcomeKind | null;
  service: ServiceSays;
  verdict: Verdict;
}

/** A point in the tool's run where the kit holds it until the Stop is recorded. */
export class Gate {
  #reach!: () => void;
  #open!: () => void;
  readonly reached = new Promise<void>((r) => (this.#reach = r));
  readonly #opened = new Promise<void>((r) => (this.#open = r));
  hold(): Promise<void> {
    this.#reach();
    return this.#opened;
  }
  open() {
    this.#open();
  }
}

export type Where = "start" | "checkpoint" | "afterSubmitted" | "firstContact";
export interface Instrumentation {
  gate?: { at: Where; gate: Gate };
  /** The service committed, the reply never came back: ctx.submitted() is never recorded; the call fails. */
  loseReply?: boolean;
  cancelDown?: boolean;
  /** Set by the instrumented tool when a fault was actually injected (a case whose fault never fired tested nothing). */
  fired?: { replyLost: boolean; cancelRefused: boolean };
}

/** The tool as the case runs it: the same code and service, held at one point, or with a fault injected. */
export function instrument(tool: ToolDefinition, how: Instrumentation): ToolDefinition {
  const at = how.gate?.at;
  const hold = (where: Where) => (at === where ? how.gate!.gate.hold() : Promise.resolve());
  let contacted = false;
  const contact = async () => {
    if (contacted) return;
    contacted = true;
    await hold("firstContact");
  };
  return {
    ...tool,
    async run(input, ctx) {
      await hold("start");
      const c: ToolContext = {
        get signal() {
          return ctx.signal;
        },
        idempotencyKey: ctx.idempotencyKey,
        workItemId: ctx.workItemId,
        taskId: ctx.taskId,
        toolCallId: ctx.toolCallId,
        async checkpoint() {
          await hold("checkpoint");
          await ctx.checkpoint();
        },
        async submitted(operationId, details) {
          if (how.loseReply) {
            if (how.fired) how.fired.replyLost = true;
            throw new Error("the reply was lost on the way back (conformance kit)");
          }
          await ctx.submitted(operationId, details);
          await hold("afterSubmitted");
          await contact();
        },
        async holdResource(type, handle) {
          const r = await ctx.holdResource(type, handle);
          await contact();
          return r;
        },
        releaseResource: (type, handle) => ctx.releaseResource(type, handle),
        async reportPartial(result, options) {
          await ctx.reportPartial(result, options);
          await contact();
        },
        async reportProgress(progress) {
          await ctx.reportProgress(progress);
          await contact();
        },
      };
      return tool.run(input, c);
    },
    ...(how.cancelDown && tool.cancel
      ? {
          cancel: async () => {
            if (how.fired) how.fired.cancelRefused = true;
            throw new Error("the cancel endpoint is down (conformance kit)");
          },
        }
      : {}),
  };
}

/**
 * Where "under way" is for this tool: a remote job (provider cancel, rollback) once it reached its service (its first
 * report: a resource, progress); local code and a commitment's preparation as they start (the signal fires while it
 * is held, before any commitment).
 */
export const underWay = (tool: ToolDefinition): Where => (!tool.commitsEffect && tool.mechanism !== "abort_signal" ? "firstContact" : "start");

/** The table the command prints: case, what Stopline reported, what the service says, verdict. */
export function formatTable(tool: string, results: CaseResult[]): string {
  const rows = [["case", "Stopline reported", "service says", "verdict"], ...results.map((r) => [r.title, r.stopline, r.service.replace("_", " "), r.verdict])];
  const widths = rows[0].map((_, i) => Math.min(i === 1 ? 70 : 44, Math.max(...rows.map((r) => r[i].length))));
  const cell = (s: string, w: number) => (s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
  const lines = rows.map((r) => r.map((c, i) => cell(c, widths[i])).join(" │ "));
  lines.splice(1, 0, widths.map((w) => "─".repeat(w)).join("─┼─"));
  const failed = failedCases(results);
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  const notes = [
    count(Verdict.noCheckpoint) ? `${count(Verdict.noCheckpoint)} case(s): the tool commits an effect without passing Stopline's checkpoint` : "",
    count(Verdict.unverified) ? `${count(Verdict.unverified)} case(s) unverified: the tool has no inspect() and no witness, so nobody asked its service` : "",
    count(Verdict.notReached) ? `${count(Verdict.notReached)} case(s) not reached: the call never got to the point the case needs, so it tested nothing` : "",
  ].filter(Boolean);
  const verdict = failed.length
    ? `FAIL: ${failed.length} case(s) where Stopline's report disagrees with the service or the tool breaks the contract`
    : `PASS: no report the service contradicts`;
  return `Stop conformance of ${tool}\n${lines.join("\n")}\n${[verdict, ...notes].join("\n")}\n`;
}

export const failedCases = (results: CaseResult[]) => results.filter((r) => FAILING.includes(r.verdict));
