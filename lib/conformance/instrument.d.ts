import type { ToolDefinition } from "../tools/contract";
import type { OutcomeKind } from "../outcomes/child-outcome";
import type { ConformanceCase } from "./cases";
import { Verdict, type ServiceSays } from "./verdict";
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
export declare class Gate {
    #private;
    readonly reached: Promise<void>;
    hold(): Promise<void>;
    open(): void;
}
export type Where = "start" | "checkpoint" | "afterSubmitted" | "firstContact";
export interface Instrumentation {
    gate?: {
        at: Where;
        gate: Gate;
    };
    /** The service committed, the reply never came back: ctx.submitted() is never recorded; the call fails. */
    loseReply?: boolean;
    cancelDown?: boolean;
    /** Set by the instrumented tool when a fault was actually injected (a case whose fault never fired tested nothing). */
    fired?: {
        replyLost: boolean;
        cancelRefused: boolean;
    };
}
/** The tool as the case runs it: the same code and service, held at one point, or with a fault injected. */
export declare function instrument(tool: ToolDefinition, how: Instrumentation): ToolDefinition;
/**
 * Where "under way" is for this tool: a remote job (provider cancel, rollback) once it reached its service (its first
 * report: a resource, progress); local code and a commitment's preparation as they start (the signal fires while it
 * is held, before any commitment).
 */
export declare const underWay: (tool: ToolDefinition) => Where;
/** The table the command prints: case, what Stopline reported, what the service says, verdict. */
export declare function formatTable(tool: string, results: CaseResult[]): string;
export declare const failedCases: (results: CaseResult[]) => CaseResult[];
