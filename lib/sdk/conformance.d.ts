import { ConformanceCase } from "../conformance/cases";
import { type CaseResult } from "../conformance/instrument";
import { type ServiceSays } from "../conformance/verdict";
import type { CallRef, ToolDefinition } from "../tools/contract";
import type { StoplineClient } from "./client";
export { CONFORMANCE_CASES, ConformanceCase } from "../conformance/cases";
export { failedCases, formatTable as formatConformanceTable, type CaseResult } from "../conformance/instrument";
export { Verdict, type ServiceSays } from "../conformance/verdict";
export interface StopConformanceOptions {
    /** A client with an agent (or admin) token: creates the cases' tasks and presses Stop. */
    agent: StoplineClient;
    /** A client with a worker token: runs the tool through the worker protocol, as your workers do. */
    worker: StoplineClient;
    /** Your tool, as your worker serves it (the server should register it too, with inspect(), to reconcile). */
    tool: ToolDefinition<any, any>;
    /** An input your tool accepts (small: each case runs the tool once). */
    input: unknown;
    /** Your own record of what the service did for this call, besides inspect() (e.g. the service's log). */
    witness?: (ref: CallRef) => Promise<ServiceSays>;
    cases?: readonly ConformanceCase[];
    /** How long a case waits for the tool and the server at most (default 30 s). */
    caseTimeoutMs?: number;
}
/**
 * The stop-conformance kit for tool authors, against a running Stopline server (issue 13): the seeds' race list,
 * each case one task — your tool run by the SDK's worker, held at one point of its run (or given a fault), Stop
 * pressed through the API, the server's summary read once it settled — and each case judged by your tool's own
 * inspect() (and your witness) against what Stopline reported. An overclaim (Stopline reporting a stop for something
 * your service shows took effect or still runs) is a failure: `failedCases(results)` is then not empty.
 * Run it against a test server (its tasks are real tasks). Nothing else may serve this tool on that server meanwhile.
 */
export declare function runStopConformance(options: StopConformanceOptions): Promise<CaseResult[]>;
