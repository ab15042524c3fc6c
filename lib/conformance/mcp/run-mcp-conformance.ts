import { randomUUID } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { McpInspectVia } from "../../tools/adapters/mcp";
import { fillTemplate } from "../../tools/adapters/mcp-mapping";
import type { CallRef } from "../../tools/contract";
import { connect, CALL_TAG, REVISIONS, type Connection, type Revision, type SeenCall, type Target } from "./connection";
import { CANCEL_WORDS, judgeRace, McpRace, McpVerdict, MCP_RACES, RACE_TITLES, type Did, type Told } from "./judge";

/**
 * The MCP cancellation conformance pack: for each tool of a server (or those named), at each spec revision the
 * server offers, the cancellation races (judge.ts) — each judged by what the server did, as a witness shows it,
 * against what the client was told.
 *
 * Witnesses, best first:
 * - a declared inspect tool (or resource) of the same server — the tool's `_meta["dev.stopline/inspect"]` in
 *   tools/list, or `inspect` in the options — asked by the call's idempotency key: committed / not_committed /
 *   running (the adapter's McpInspectVia, lib/tools/adapters/mcp.ts);
 * - the server's own progress notifications after the cancel (it kept working; reaching the total = it ran to the end);
 * - on a dropped 2025-11-25 stream, what the server replays when the SDK resumes the stream (Last-Event-ID);
 * - a task's status (tasks/get) — the server's own word, checked against the inspect tool when there is one.
 * A result the server sends is its own word that the call completed. Silence is never taken for a stop.
 */
export const INSPECT_META = "dev.stopline/inspect";

export interface McpConformanceOptions {
  /** Only these tools (by MCP name); default every tool that is not some other tool's inspect. */
  tools?: string[];
  /** Arguments per tool (merged over those generated from the input schema). */
  args?: Record<string, Record<string, unknown>>;
  /** Inspect per tool, beside what the server declares. */
  inspect?: Record<string, McpInspectVia>;
  revisions?: readonly Revision[];
  races?: readonly McpRace[];
  /** How long the pack waits after a cancel for the server to answer or settle (default 1.5 s). */
  graceMs?: number;
  /** How long a mid-call race waits for a sign that the server has the call (default 300 ms). */
  startMs?: number;
  stderr?: "ignore" | "inherit";
}

export interface RaceResult {
  tool: string;
  race: McpRace;
  title: string;
  told: string;
  did: string;
  verdict: McpVerdict;
  finding: string;
}

export interface RevisionReport {
  revision: Revision;
  /** Why the revision was not run (the server does not offer it). */
  notOffered: string | null;
  server: string | null;
  tasks: Connection["tasks"];
  results: RaceResult[];
}

export interface McpConformanceReport {
  target: string;
  revisions: RevisionReport[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runMcpConformance(target: Target, options: McpConformanceOptions = {}): Promise<McpConformanceReport> {
  const report: McpConformanceReport = { target: "url" in target ? target.url : [target.command, ...target.args].join(" "), revisions: [] };
  for (const revision of options.revisions ?? REVISIONS) {
    let conn: Connection;
    try {
      conn = await connect(target, revision, { stderr: options.stderr });
    } catch (error) {
      report.revisions.push({ revision, notOffered: (error as Error).message.split("\n")[0].slice(0, 200), server: null, tasks: null, results: [] });
      continue;
    }
    try {
      report.revisions.push(await runRevision(conn, options));
    } finally {
      await conn.close().catch(() => {});
    }
  }
  // No revision at all: the server is not there (or speaks no MCP), which is no finding about its cancellations.
  if (report.revisions.every((r) => r.notOffered))
    throw new Error(`could not connect to ${report.target}: ${report.revisions.map((r) => `${r.revision}: ${r.notOffered}`).join("; ")}`);
  return report;
}

async function runRevision(conn: Connection, o: McpConformanceOptions): Promise<RevisionReport> {
  const listed: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await conn.client.listTools(cursor ? { cursor } : undefined);
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const viaOf = (t: Tool): McpInspectVia | undefined => o.inspect?.[t.name] ?? parseVia((t._meta as Record<string, unknown> | undefined)?.[INSPECT_META]);
  const inspectTools = new Set(listed.map((t) => viaOf(t)?.tool).filter((n): n is string => !!n));
  const missing = (o.tools ?? []).filter((n) => !listed.some((t) => t.name === n));
  if (missing.length) throw new Error(`the server has no tool ${missing.join(", ")}`);
  const tools = o.tools ? listed.filter((t) => o.tools!.includes(t.name)) : listed.filter((t) => !inspectTools.has(t.name));
  const server = conn.client.getServerVersion();
  const results: RaceResult[] = [];
  for (const tool of tools) {
    for (const race of o.races ?? MCP_RACES) {
      const r = await runRace(conn, tool, race, viaOf(tool), o).catch(
        (error: unknown): Omit<RaceResult, "tool" | "race" | "title"> => ({
          told: "-",
          did: "-",
          verdict: McpVerdict.notReached,
          finding: `the race failed: ${(error as Error).message.slice(0, 160)}`,
        }),
      );
      results.push({ tool: tool.name, race, title: RACE_TITLES[race], ...r });
    }
  }
  return { revision: conn.revision, notOffered: null, server: server ? `${server.name} ${server.version}` : null, tasks: conn.tasks, results };
}

type Outcome = Omit<RaceResult, "tool" | "race" | "title">;

async function runRace(conn: Connection, tool: Tool, race: McpRace, via: McpInspectVia | undefined, o: McpConformanceOptions): Promise<Outcome> {
  const graceMs = o.graceMs ?? 1_500;
  const na = (finding: string): Outcome => ({ told: "-", did: "-", verdict: McpVerdict.notApplicable, finding });
  if (race === McpRace.streamClosed && !conn.http) return na("stdio: no HTTP response stream");
  const taskSupport = (tool as { execution?: { taskSupport?: string } }).execution?.taskSupport;
  if (race === McpRace.tasksCancel && !conn.tasks) return na("the server offers no tasks");
  if (race === McpRace.tasksCancel && conn.tasks === "core" && taskSupport !== "optional" && taskSupport !== "required")
    return na("the tool does not run as a task");
  if (race !== McpRace.tasksCancel && taskSupport === "required") return na("the tool runs only as a task");

  const key = `conf-${randomUUID()}`;
  const ref: CallRef = { workItemId: key, taskId: key, toolCallId: key, idempotencyKey: key, operationId: null, providerRef: null, input: null };
  const args = { ...argumentsFor(tool), ...(o.args?.[tool.name] ?? {}), ...(via?.idempotencyKeyArgument ? { [via.idempotencyKeyArgument]: key } : {}) };
  ref.input = args;
  const ask = via?.tool || via?.resource ? () => askWitness(conn, via, ref) : null;
  const call = conn.observer.open();
  const controller = new AbortController();
  const params = {
    name: tool.name,
    arguments: args,
    _meta: { [CALL_TAG]: call.tag },
    ...(race === McpRace.tasksCancel && conn.tasks === "core" ? { task: { ttl: 60_000 } } : {}),
  };
  const startCall = () => conn.client.callTool(params, { signal: controller.signal, timeout: 30_000, onprogress: () => {} } as never).catch((e: unknown) => e);

  if (race === McpRace.beforeSend) {
    controller.abort(new Error("conformance: cancelled before sending"));
    await startCall();
    if (call.sentAt !== null)
      return { told: "-", did: "the request left", verdict: McpVerdict.lies, finding: "the client sent a request it had already cancelled" };
    await sleep(Math.min(graceMs, 300));
    const did: Did = ask ? await ask() : { kind: "none", how: "the request never left the client" };
    const j = judgeRace(race, { kind: "nothing_sent" }, did, conn.revision);
    return { told: "nothing sent", did: did.how, ...j };
  }

  const pending = startCall();
  if (race === McpRace.afterResult) {
    await pending;
    await conn.observer.until(() => call.answer !== null || call.task !== null, Date.now() + 5_000);
    if (call.task) return na("the server answered with a task (see tasks/cancel)");
    if (!call.answer) return { told: "no answer", did: "-", verdict: McpVerdict.notReached, finding: "no result within 5 s" };
    const told = toldOf(call);
    if (told.kind !== "result") return { told: toldText(told), did: "-", verdict: McpVerdict.notReached, finding: "the call did not succeed" };
    await conn.client.notification({
      method: "notifications/cancelled",
      params: { requestId: call.requestId!, reason: "conformance: cancel after the result" },
    } as never);
    await sleep(Math.min(graceMs, 300));
    // Still serving? (tools/list: every revision has it; 2026-07-28 has no ping.)
    const alive = await conn.client.listTools(undefined, { timeout: 5_000 } as never).then(
      () => true,
      () => false,
    );
    const did: Did = ask
      ? await settle(ask, graceMs * 2)
      : { kind: "unknown", how: `no witness (the server ${alive ? "still answers" : "no longer answers"} tools/list)` };
    if (!alive)
      return {
        told: toldText(told),
        did: did.how,
        verdict: McpVerdict.unverified,
        finding: "the server stopped answering (tools/list) after a cancel for a finished request",
      };
    return { told: toldText(told), did: did.how, ...judgeRace(race, told, did, conn.revision) };
  }

  // The call must be under way at the server: a task handle, progress, the witness saying running, or no answer yet.
  const startedBy = Date.now() + (o.startMs ?? 300);
  await conn.observer.until(() => call.answer !== null || call.task !== null || call.progress.length > 0, startedBy);
  // A server may send progress just before its task handle (same write): a moment for the handle, if one follows.
  if (call.progress.length && !call.answer && !call.task) await conn.observer.until(() => call.task !== null || call.answer !== null, Date.now() + 25);
  if (ask && !call.answer && !call.progress.length && !call.task) {
    while (Date.now() < startedBy + 2_000 && !call.answer && (await ask()).kind !== "running") await sleep(50);
  }
  if (call.task && race !== McpRace.tasksCancel) {
    controller.abort(new Error("conformance: cleanup"));
    return na("the server answered with a task (see tasks/cancel)");
  }
  if (call.answer) {
    await pending;
    return {
      told: toldText(toldOf(call)),
      did: "-",
      verdict: McpVerdict.notReached,
      finding: `answered ${call.answer.at - (call.sentAt ?? call.answer.at)} ms after the request, before the cancel`,
    };
  }
  const progressAtCancel = call.progress.length;

  if (race === McpRace.tasksCancel) {
    // Progress may come before the handle: the handle (or a plain answer) is what this race waits for.
    await conn.observer.until(() => call.task !== null || call.answer !== null, Date.now() + 5_000);
    if (!call.task) {
      controller.abort(new Error("conformance: cleanup"));
      return na("the server answered without a task");
    }
    const taskId = call.task.taskId;
    await conn.client.request({ method: "tasks/cancel", params: { taskId } } as never, z.object({}).loose() as never, { timeout: 5_000 } as never);
    const deadline = Date.now() + graceMs * 2;
    let status = call.task.status;
    let message = "";
    while (Date.now() < deadline) {
      const t = (await conn.client.request(
        { method: "tasks/get", params: { taskId } } as never,
        z.object({ status: z.string(), statusMessage: z.string().optional() }).loose() as never,
        { timeout: 5_000 } as never,
      )) as { status: string; statusMessage?: string };
      status = t.status;
      message = t.statusMessage ?? "";
      if (["completed", "failed", "cancelled"].includes(status)) break;
      await sleep(50);
    }
    controller.abort(new Error("conformance: cleanup"));
    const told: Told =
      status === "cancelled"
        ? { kind: "cancelled", text: `task ${status}${message ? `: ${message}` : ""}` }
        : status === "completed"
          ? { kind: "result", text: `task completed` }
          : status === "failed"
            ? { kind: "error", text: `task failed${message ? `: ${message}` : ""}` }
            : { kind: "silence" };
    // The task's status is the server's word; an inspect tool is the witness. Give a cancelled task the time it needs to have finished anyway.
    if (ask) await sleep(graceMs);
    const did: Did = ask
      ? await settle(ask, graceMs * 2)
      : status === "completed"
        ? { kind: "effect", how: "tasks/get says completed (the server's own word)" }
        : { kind: "unknown", how: `no witness beyond tasks/get ("${status}")` };
    return { told: `task "${status}"${message ? ` (${message.slice(0, 60)})` : ""}`, did: did.how, ...judgeRace(race, told, did, conn.revision) };
  }

  if (race === McpRace.streamClosed) conn.dropStream(call.tag);
  else controller.abort(new Error("conformance: cancelled mid-call"));
  const how =
    race === McpRace.streamClosed
      ? "the response stream dropped"
      : conn.http && conn.revision !== "2025-11-25"
        ? "the SDK closed the response stream (2026-07-28)"
        : "notifications/cancelled";

  // What the server tells the client, and what it keeps doing, within the grace period: an answer, or progress that
  // keeps coming (until it reaches its total or stops for a while).
  const total = () => call.progress.at(-1)?.total;
  const finished = () => call.answer !== null || (total() !== undefined && call.progress.at(-1)!.progress >= total()!);
  let quietUntil = Date.now() + graceMs;
  let seen = call.progress.length;
  while (!finished() && Date.now() < quietUntil) {
    await conn.observer.until(() => finished() || call.progress.length > seen, quietUntil);
    if (call.progress.length > seen) {
      seen = call.progress.length;
      quietUntil = Date.now() + graceMs;
    }
  }
  if (race === McpRace.streamClosed) controller.abort(new Error("conformance: cleanup"));
  await Promise.race([pending, sleep(200)]);
  const told = toldOf(call);
  const after = call.progress.slice(progressAtCancel);
  let did: Did;
  if (ask) did = await settle(ask, graceMs * 2);
  else if (told.kind === "result") did = { kind: "effect", how: "its own result says it completed" };
  else if (after.length && finished())
    did = { kind: "effect", how: `ran to the end: progress went on to ${after.at(-1)!.progress}/${total()} after the cancel` };
  else if (after.length) did = { kind: "running", how: `kept working: ${after.length} progress notification(s) after the cancel, then no word` };
  else did = { kind: "unknown", how: "no witness, and nothing from the server after the cancel" };
  const j = judgeRace(race, told, did, conn.revision);
  return { told: `${toldText(told)} (${how})`, did: did.how, ...j };
}

/** The witness, asked until it no longer says "running" (or the time is up). */
async function settle(ask: () => Promise<Did>, ms: number): Promise<Did> {
  const deadline = Date.now() + ms;
  let did = await ask();
  while (did.kind === "running" && Date.now() < deadline) {
    await sleep(100);
    did = await ask();
  }
  return did;
}

const Outcome = z
  .object({
    status: z.enum(["committed", "not_committed", "running", "unknown"]),
    reason: z.string().optional(),
    externalRecordId: z.string().nullish(),
    description: z.string().optional(),
  })
  .loose();

async function askWitness(conn: Connection, via: McpInspectVia, ref: CallRef): Promise<Did> {
  const fill = (text: string) => fillTemplate(text, ref);
  const how = via.tool ? `inspect tool ${via.tool}` : `resource ${fill(via.resource!)}`;
  try {
    let answer: unknown;
    if (via.tool) {
      const args = Object.fromEntries(Object.entries(via.arguments ?? {}).map(([k, v]) => [k, typeof v === "string" ? fill(v) : v]));
      const r = (await conn.client.callTool({ name: via.tool, arguments: args }, { timeout: 5_000 } as never)) as {
        structuredContent?: unknown;
        content?: { type: string; text?: string }[];
        isError?: boolean;
      };
      if (r.isError) return { kind: "unknown", how: `${how} answered an error` };
      answer = r.structuredContent ?? JSON.parse(r.content?.find((c) => c.type === "text")?.text ?? "null");
    } else {
      const read = await conn.client.readResource({ uri: fill(via.resource!) }, { timeout: 5_000 } as never);
      answer = JSON.parse((read.contents[0] as { text?: string } | undefined)?.text ?? "null");
    }
    const parsed = Outcome.safeParse(answer);
    if (!parsed.success) return { kind: "unknown", how: `${how} answered no outcome` };
    const o = parsed.data;
    return o.status === "committed"
      ? { kind: "effect", how: `${how} says it took effect${o.externalRecordId ? ` (${o.externalRecordId})` : o.description ? ` (${o.description})` : ""}` }
      : o.status === "not_committed"
        ? { kind: "none", how: `${how} says it did not take effect` }
        : o.status === "running"
          ? { kind: "running", how: `${how} says it is still running` }
          : { kind: "unknown", how: `${how} does not know${o.reason ? `: ${o.reason}` : ""}` };
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (via.resource && (code === -32002 || code === -32602)) return { kind: "none", how: `${how} does not exist` };
    return { kind: "unknown", how: `asking ${how} failed: ${(error as Error).message.slice(0, 80)}` };
  }
}

function toldOf(call: SeenCall): Told {
  const a = call.answer;
  if (!a) return { kind: "silence" };
  if (a.error) return CANCEL_WORDS.test(a.error.message) ? { kind: "cancelled", text: a.error.message } : { kind: "error", text: a.error.message };
  const content = (a.raw?.content as { type: string; text?: string }[] | undefined) ?? [];
  const text = content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ") || "(no text)";
  if (a.raw?.isError === true) return CANCEL_WORDS.test(text) ? { kind: "cancelled", text } : { kind: "error", text };
  return { kind: "result", text };
}

const toldText = (t: Told) =>
  t.kind === "silence"
    ? "no answer"
    : t.kind === "nothing_sent"
      ? "nothing sent"
      : `${t.kind === "result" ? "result" : t.kind === "cancelled" ? '"cancelled"' : "error"}: ${t.text.slice(0, 60)}`;

/** `{"tool":"order_status","arguments":{"key":"{idempotencyKey}"},"idempotencyKeyArgument":"key"}` as a tool declares it. */
function parseVia(value: unknown): McpInspectVia | undefined {
  const parsed = z
    .object({
      tool: z.string().optional(),
      resource: z.string().optional(),
      arguments: z.record(z.string(), z.unknown()).optional(),
      idempotencyKeyArgument: z.string().optional(),
    })
    .safeParse(value);
  return parsed.success && (parsed.data.tool || parsed.data.resource) ? parsed.data : undefined;
}

/**
 * `tool=inspectTool@keyArgument` or `tool=resource:<uri with {idempotencyKey}>@keyArgument` (the CLI's --inspect): the
 * call carries its idempotency key in `keyArgument`, and the witness is asked by it.
 */
export function parseInspectOption(text: string): [string, McpInspectVia] {
  const [tool, spec] = text.split(/=(.*)/s, 2);
  if (!tool || !spec) throw new Error(`--inspect ${text}: expected tool=inspectTool@keyArgument or tool=resource:<uri with {idempotencyKey}>@keyArgument`);
  if (spec.startsWith("resource:")) {
    const [, uri, keyArgument] = /^resource:(.*?)(?:@(\w+))?$/s.exec(spec)!;
    return [tool, { resource: uri, ...(keyArgument ? { idempotencyKeyArgument: keyArgument } : {}) }];
  }
  const [inspectTool, keyArgument = "key"] = spec.split("@");
  return [tool, { tool: inspectTool, arguments: { [keyArgument]: "{idempotencyKey}" }, idempotencyKeyArgument: keyArgument }];
}

/** The smallest arguments the tool's input schema accepts: each required property's default, first enum value, or a plain value of its type. */
export function argumentsFor(tool: Pick<Tool, "inputSchema">): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const p = schema.properties?.[name] ?? {};
    const type = Array.isArray(p.type) ? p.type[0] : p.type;
    args[name] =
      p.default !== undefined
        ? p.default
        : Array.isArray(p.enum)
          ? p.enum[0]
          : p.const !== undefined
            ? p.const
            : type === "number" || type === "integer"
              ? typeof p.minimum === "number"
                ? p.minimum
                : 1
              : type === "boolean"
                ? false
                : type === "array"
                  ? []
                  : type === "object"
                    ? {}
                    : "conformance";
  }
  return args;
}

/** The report as text: one table per revision, then what the server honours, ignores and lies about. */
export function formatMcpReport(report: McpConformanceReport): string {
  const out: string[] = [`MCP cancellation conformance — ${report.target}`];
  for (const r of report.revisions) {
    out.push("", `## ${r.revision}${r.server ? ` — ${r.server}` : ""}${r.tasks ? ` (tasks: ${r.tasks})` : ""}`);
    if (r.notOffered) {
      out.push(`not offered: ${r.notOffered}`);
      continue;
    }
    const rows = r.results.map((x) => [x.tool, x.title, x.verdict, x.told, x.finding]);
    const head = ["tool", "race", "verdict", "told the client", "finding"];
    const widths = head.map((h, i) => Math.min(Math.max(h.length, ...rows.map((row) => row[i].length)), i === 4 ? 200 : 60));
    const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.slice(0, widths[i]).padEnd(widths[i]))).join("  ");
    out.push(line(head), ...rows.map(line));
    const by = (v: McpVerdict) => r.results.filter((x) => x.verdict === v).map((x) => `${x.tool}: ${x.title}`);
    out.push(
      "",
      `honours: ${by(McpVerdict.honours).join("; ") || "—"}`,
      `ignores: ${by(McpVerdict.ignores).join("; ") || "—"}`,
      `LIES about: ${by(McpVerdict.lies).join("; ") || "nothing"}`,
      `unverified (no witness): ${by(McpVerdict.unverified).length}, not reached: ${by(McpVerdict.notReached).length}, n/a: ${by(McpVerdict.notApplicable).length}`,
    );
  }
  return out.join("\n");
}

export const mcpLies = (report: McpConformanceReport) =>
  report.revisions.flatMap((r) => r.results.filter((x) => x.verdict === McpVerdict.lies).map((x) => ({ revision: r.revision, ...x })));
