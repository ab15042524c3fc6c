import { z } from "zod";
import type { Database } from "../../db/client";
import { Mechanism, RiskLevel, WorkItemKind } from "../../ledger/states";
import type { CompensationResult, InspectOutcome, ToolDefinition } from "../contract";
import type { ToolRegistry } from "../registry";
import { HostedAction, HostedAnswerSchema, type HostedPayload } from "./actions";
import type { HostedCapabilities } from "./register-tool-host";

/**
 * Tools hosted by their owners (issue 23), as the engine sees them: a tool that is not registered in this process
 * but whose host (an SDK worker, an agent's AI SDK wrapper: lib/sdk/host.ts) registered it and is alive appears in
 * this process's registry as a stand-in whose `inspect`, `cancel`, `rollback` and `compensate` ask the host — a
 * ToolRequest row that the host claims through the API, runs with the tool's own contract, and answers. So
 * reconciliation, the withdrawal of a request in flight, and an approved compensation of such a tool reach the
 * process that can do them, and no person is asked what its own inspect() can say.
 *
 * Fallback, when the host is gone (its registration expired): the tool is not known here, as before — its calls'
 * outcomes stay uncertain with a review item for a person, and they are asked about again by the maintenance
 * pass as soon as a host registers the tool again (a restarted worker).
 */
export class HostedTools {
  readonly #database: Database;
  readonly #answerTimeoutMs: number;
  #known = new Map<string, { risk: string; caps: HostedCapabilities }>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #refreshing: Promise<void> | null = null;

  constructor(database: Database, options: { answerTimeoutMs?: number } = {}) {
    this.#database = database;
    this.#answerTimeoutMs = options.answerTimeoutMs ?? 15_000;
  }

  /** Reads the live registrations (every second while started): get() answers from this snapshot. */
  refresh(): Promise<void> {
    return (this.#refreshing ??= (async () => {
      try {
        const rows = await this.#database.prisma.toolHost.findMany({
          where: { expiresAt: { gt: new Date() } },
          select: { toolName: true, risk: true, capabilities: true },
        });
        const known = new Map<string, { risk: string; caps: HostedCapabilities }>();
        for (const row of rows) {
          const caps = row.capabilities as unknown as HostedCapabilities;
          const seen = known.get(row.toolName);
          known.set(
            row.toolName,
            seen ? { risk: seen.risk, caps: { ...caps, actions: [...new Set([...seen.caps.actions, ...caps.actions])] } } : { risk: row.risk, caps },
          );
        }
        this.#known = known;
      } catch {
        /* the database is briefly unavailable: keep the last snapshot */
      } finally {
        this.#refreshing = null;
      }
    })());
  }

  start(refreshMs = 1_000): this {
    void this.refresh();
    this.#timer ??= setInterval(() => void this.refresh(), refreshMs);
    this.#timer.unref?.();
    return this;
  }

  stop() {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  get(name: string): ToolDefinition | undefined {
    const hosted = this.#known.get(name);
    if (!hosted) return undefined;
    const { caps } = hosted;
    const ask = (action: HostedAction, payload: HostedPayload) => askToolHost(this.#database, name, action, payload, this.#answerTimeoutMs);
    const can = (action: HostedAction) => caps.actions.includes(action);
    return {
      name,
      kind: caps.commitsEffect ? WorkItemKind.externalAction : WorkItemKind.remoteTool,
      risk: hosted.risk === RiskLevel.high ? RiskLevel.high : RiskLevel.low,
      commitsEffect: caps.commitsEffect,
      mechanism: (Object.values(Mechanism) as string[]).includes(caps.mechanism) ? (caps.mechanism as Mechanism) : Mechanism.none,
      async run() {
        throw new Error(`${name} runs in the process that hosts it, not in this one`);
      },
      ...(can(HostedAction.inspect) ? { inspect: async (ref) => inspectOutcome(await ask(HostedAction.inspect, { ref })) } : {}),
      ...(can(HostedAction.cancel) ? { cancel: async (ref) => void (await ask(HostedAction.cancel, { ref })) } : {}),
      ...(can(HostedAction.rollback) ? { rollback: async (ref) => void (await ask(HostedAction.rollback, { ref })) } : {}),
      ...(can(HostedAction.compensate)
        ? { compensate: async (effect, expectedVersion) => compensationResult(await ask(HostedAction.compensate, { effect, expectedVersion })) }
        : {}),
    } satisfies ToolDefinition;
  }
}

/** Makes the tools of live hosts known to this registry (after its own tools), refreshed every second. */
export function attachHostedTools(registry: ToolRegistry, database: Database): HostedTools {
  const hosted = new HostedTools(database).start();
  registry.fallBackTo((name) => hosted.get(name));
  return hosted;
}

/** Asks the tool's host and waits for its answer; throws its error, or after `timeoutMs` without one. */
export async function askToolHost(database: Database, toolName: string, action: HostedAction, payload: HostedPayload, timeoutMs: number): Promise<unknown> {
  const request = await database.prisma.toolRequest.create({
    data: { toolName, action, payload: payload as never, expiresAt: new Date(Date.now() + timeoutMs) },
  });
  for (let wait = 20; ; wait = Math.min(wait * 2, 200)) {
    const row = await database.prisma.toolRequest.findUniqueOrThrow({ where: { id: request.id }, select: { answer: true, answeredAt: true, claimedBy: true } });
    if (row.answeredAt) {
      const answer = HostedAnswerSchema.parse(row.answer);
      if (!answer.ok) throw new Error(`${toolName}.${action}() in its host (${row.claimedBy}) failed: ${answer.error}`);
      return answer.value;
    }
    if (Date.now() >= request.expiresAt.getTime()) {
      throw new Error(
        row.claimedBy
          ? `the process that hosts ${toolName} (${row.claimedBy}) did not answer ${action} within ${timeoutMs} ms`
          : `no process that hosts ${toolName} took the ${action} request within ${timeoutMs} ms`,
      );
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Written ahead: what the service holds for the call now (contract.ts InspectOutcome.holds), kept through the host's answer. */
const holds = z
  .array(z.object({ type: z.string().min(1).max(100), handle: z.string().min(1).max(500) }))
  .max(100)
  .optional();
const InspectOutcomeSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("committed"),
    externalRecordId: z.string().nullish(),
    externalVersion: z.string().nullish(),
    currentVersion: z.string().nullish(),
    evidence: z.record(z.string(), z.unknown()).optional(),
    result: z.unknown().optional(),
    description: z.string().optional(),
    holds,
  }),
  z.object({ status: z.literal("not_committed"), partialResult: z.unknown().optional(), partialComplete: z.boolean().optional(), holds }),
  z.object({ status: z.literal("running"), holds }),
  z.object({ status: z.literal("unknown"), reason: z.string(), holds }),
]);

function inspectOutcome(value: unknown): InspectOutcome {
  const parsed = InspectOutcomeSchema.safeParse(value);
  return parsed.success
    ? (parsed.data as InspectOutcome)
    : { status: "unknown", reason: `the host's inspect() answered something that is not an outcome: ${JSON.stringify(value)?.slice(0, 200)}` };
}

const CompensationSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("compensated"), detail: z.string().optional() }),
  z.object({ status: z.literal("conflict"), currentVersion: z.string().nullable(), detail: z.string() }),
  z.object({ status: z.literal("failed"), detail: z.string() }),
]);

function compensationResult(value: unknown): CompensationResult {
  const parsed = CompensationSchema.safeParse(value);
  return parsed.success
    ? parsed.data
    : { status: "failed", detail: `the host's compensate() answered something that is not a result: ${JSON.stringify(value)?.slice(0, 200)}` };
}
