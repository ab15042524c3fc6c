import type { Attributes, Context, Link, Span, SpanContext, Tracer } from "@opentelemetry/api";
import type { IdGenerator, NodeTracerProvider, SpanExporter } from "@opentelemetry/sdk-trace-node";
import { stopTrace, taskTrace, toolCallSpan, traceparentOf, type StopKey, type TraceIds } from "./ids";
import { currentScope, inScope, scopesWanted, wantScopes } from "./scope";

/**
 * Stopline's traces (OpenTelemetry), off unless OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is set; then
 * exported over OTLP/HTTP as the standard variables say (OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf — the default —
 * or http/json; OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER[_ARG]).
 *
 * - Each Stop is one trace (ids.ts): `stopline.stop` (its root: boundary → settlement) with `stopline.stop.boundary`,
 *   `.plan`, one `.child` per stopped child (its action; each step it logs and the service's answer are span events),
 *   `.reconciliation`, `.verification` and `.settlement`. Steps run live where they run (stopStep); the root and the
 *   settlement are emitted by whoever records the settlement (ledger-observer.ts), with the root's derived ids.
 * - Each tool call is a span of its task's trace (`stopline.tool_call`), emitted when the call ends from what the
 *   ledger recorded (start = claim, end = finish); while it runs, its context is active (inToolCall) and travels on:
 *   `traceHeaders()` for HTTP jobs, `traceMeta()` for MCP's `_meta`, the claim's `traceparent` for SDK workers.
 * The engine and the runners call this module in one line each (stopStep, inToolCall, stepEvent, traceHeaders).
 * OpenTelemetry itself is loaded only when tracing starts: every process imports this module, few export traces.
 */

type Api = typeof import("@opentelemetry/api");
type Tracing = { api: Api; provider: NodeTracerProvider; tracer: Tracer; ids: LedgerIds; sampled: (traceId: string) => boolean; endpoint: string };
const globalForTracing = globalThis as unknown as { stoplineTracing?: Tracing | null };

/** Span and trace ids as the tracer asks for them: random, unless a span with derived ids is being started. */
interface LedgerIds extends IdGenerator {
  fixed: TraceIds | null;
}

const env = (name: string) => process.env[name]?.trim() || undefined;

/** The endpoint traces go to, or null: tracing is off. */
export function tracesEndpoint(): string | null {
  if (env("OTEL_SDK_DISABLED") === "true" || env("OTEL_TRACES_EXPORTER") === "none") return null;
  return env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ?? env("OTEL_EXPORTER_OTLP_ENDPOINT") ?? null;
}

/**
 * Starts exporting traces when the environment asks for it (once per process; later calls return the same answer).
 * Returns the one line to log, or null when tracing is off.
 */
export async function startTracing(options: { serviceName?: string } = {}): Promise<string | null> {
  if (globalForTracing.stoplineTracing !== undefined) return globalForTracing.stoplineTracing ? `traces: ${globalForTracing.stoplineTracing.endpoint}` : null;
  const endpoint = tracesEndpoint();
  if (!endpoint) {
    globalForTracing.stoplineTracing = null;
    return null;
  }
  const [api, { W3CTraceContextPropagator }, { detectResources, envDetector, resourceFromAttributes }, sdk] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-node"),
  ]);
  const protocol = env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? env("OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf";
  let exporter: SpanExporter;
  if (protocol === "http/json") exporter = new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter();
  else {
    if (protocol !== "http/protobuf")
      console.error(`[stopline] OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported (http/protobuf or http/json); sending http/protobuf`);
    exporter = new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter();
  }
  const random = new sdk.RandomIdGenerator();
  const ids: LedgerIds = {
    fixed: null,
    generateTraceId: () => ids.fixed?.traceId ?? random.generateTraceId(),
    generateSpanId: () => ids.fixed?.spanId ?? random.generateSpanId(),
  };
  const resource = resourceFromAttributes({ "service.name": options.serviceName ?? "stopline" }).merge(await detectResources({ detectors: [envDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    idGenerator: ids,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: Number(env("OTEL_BSP_SCHEDULE_DELAY") ?? 1_000) })],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  wantScopes();
  globalForTracing.stoplineTracing = { api, provider, tracer: provider.getTracer("stopline"), ids, sampled: samplerFromEnvironment(api, sdk), endpoint };
  return `traces: OTLP ${protocol} to ${endpoint}`;
}

/** Sends what is buffered (tests; shutdown). */
export async function flushTracing(): Promise<void> {
  await globalForTracing.stoplineTracing?.provider.forceFlush();
}

export async function stopTracing(): Promise<void> {
  const t = globalForTracing.stoplineTracing;
  globalForTracing.stoplineTracing = undefined;
  if (!t) return;
  await t.provider.shutdown().catch(() => {});
  t.api.trace.disable();
  t.api.context.disable();
}

export const tracingEnabled = () => !!globalForTracing.stoplineTracing;

/** Whether a trace with this id is exported: the configured sampler's decision for a root with that id. */
function samplerFromEnvironment(api: Api, sdk: typeof import("@opentelemetry/sdk-trace-node")): (traceId: string) => boolean {
  const sampler = env("OTEL_TRACES_SAMPLER") ?? "parentbased_always_on";
  if (sampler.endsWith("always_off")) return () => false;
  if (sampler.endsWith("traceidratio")) {
    const ratio = new sdk.TraceIdRatioBasedSampler(Number(env("OTEL_TRACES_SAMPLER_ARG") ?? 1));
    return (traceId) => ratio.shouldSample(api.ROOT_CONTEXT, traceId).decision === sdk.SamplingDecision.RECORD_AND_SAMPLED;
  }
  return () => true;
}

const sampledFor = (traceId: string) => globalForTracing.stoplineTracing?.sampled(traceId) ?? false;
const SAMPLED = 1; // W3C trace-flags bit (TraceFlags.SAMPLED)

/** A context whose parent is the span with these derived ids (started elsewhere, or emitted later). */
function parentContext(t: Tracing, ids: TraceIds): Context {
  return t.api.trace.setSpanContext(t.api.ROOT_CONTEXT, {
    traceId: ids.traceId,
    spanId: ids.spanId,
    isRemote: true,
    traceFlags: sampledFor(ids.traceId) ? SAMPLED : 0,
  });
}

/** The span context active now (traces on only). */
export function activeSpanContext(): SpanContext | undefined {
  const t = globalForTracing.stoplineTracing;
  const active = t?.api.trace.getActiveSpan()?.spanContext();
  return active && t!.api.trace.isSpanContextValid(active) ? active : undefined;
}

/** A step of a Stop. */
export type StopStep = "boundary" | "plan" | "child" | "reconciliation" | "verification" | "pass";

/**
 * Runs one step of a Stop as a span of the Stop's trace, under its root; an error marks the span and goes on. Logs written meanwhile carry the task and the trace.
 */
export function stopStep<T>(stop: StopKey, step: StopStep, fn: () => Promise<T>, attributes: Attributes = {}): Promise<T> {
  const root = stopTrace(stop);
  const scope = {
    taskId: stop.taskId ?? currentScope()?.taskId,
    ...(stop.workItemId ? { workItemId: stop.workItemId } : {}),
    traceId: root.traceId,
    spanId: root.spanId,
    sampled: sampledFor(root.traceId),
  };
  const t = globalForTracing.stoplineTracing;
  if (!t) return inScope(scope, fn);
  // Always under the Stop's root: the engine's pass may start inside another span's context (it reacts to the
  // boundary's commit announcement, which carries the boundary's context along), and a step is not part of that.
  const parent = parentContext(t, root);
  const attrs = { ...stopAttributes(stop), "stopline.step": step, ...attributes };
  return t.tracer.startActiveSpan(`stopline.stop.${step}`, { attributes: attrs }, parent, (span) =>
    inScope({ ...scope, spanId: span.spanContext().spanId }, () => settleSpan(t, span, fn)),
  );
}

/** One step the engine logged (lib/cancellation/step-log.ts): an event on the span running now — the child's answer. */
export function stepEvent(step: { action: string; success: boolean; detail?: string; workItemId?: string | null }): void {
  globalForTracing.stoplineTracing?.api.trace.getActiveSpan()?.addEvent(`stopline.step.${step.action}`, {
    "stopline.step.success": step.success,
    ...(step.detail ? { "stopline.step.detail": step.detail } : {}),
    ...(step.workItemId ? { "stopline.work_item_id": step.workItemId } : {}),
  });
}

/**
 * Runs a tool call (a claimed work item) with its span's context active — the span itself is emitted when the call
 * ends (ledger-observer.ts) — so that what the call sends carries its traceparent and what it logs its ids.
 */
export function inToolCall<T>(item: { id: string; taskId: string; attempt: number }, fn: () => T): T {
  if (!scopesWanted()) return fn(); // nothing reads it: the runner's ctx.traceparent still carries the context
  const ids = toolCallSpan(item);
  const scope = { taskId: item.taskId, workItemId: item.id, traceId: ids.traceId, spanId: ids.spanId, sampled: sampledFor(ids.traceId) };
  const t = globalForTracing.stoplineTracing;
  if (!t) return inScope(scope, fn);
  return t.api.context.with(parentContext(t, ids), () => inScope(scope, fn));
}

/** The `traceparent` of a tool call, as handed to a worker with its claim (lib/api: the claim's answer). */
export const toolCallTraceparent = (item: { id: string; taskId: string; attempt: number }) => {
  const ids = toolCallSpan(item);
  return traceparentOf(ids, sampledFor(ids.traceId));
};

/**
 * The W3C `traceparent` header of what runs now (a tool call, a Stop's step), for an outgoing HTTP request; else
 * `fallback` (a tool's `ctx.traceparent`), else none.
 */
export function traceHeaders(headers: Record<string, string> = {}, fallback?: string): Record<string, string> {
  const active = activeSpanContext();
  if (active) return { ...headers, traceparent: traceparentOf(active, (active.traceFlags & SAMPLED) === SAMPLED) };
  const scope = currentScope();
  if (scope?.traceId && scope.spanId)
    return { ...headers, traceparent: traceparentOf({ traceId: scope.traceId, spanId: scope.spanId }, scope.sampled ?? false) };
  return fallback ? { ...headers, traceparent: fallback } : headers;
}

/** The same for MCP: `_meta.traceparent` (how MCP carries trace context), merged into a request's `_meta`. */
export const traceMeta = (meta: Record<string, unknown> = {}, fallback?: string): Record<string, unknown> => {
  const { traceparent } = traceHeaders({}, fallback);
  return traceparent ? { ...meta, traceparent } : meta;
};

const stopAttributes = (stop: StopKey): Attributes => ({
  ...(stop.taskId ? { "stopline.task_id": stop.taskId } : {}),
  ...(stop.workItemId ? { "stopline.work_item_id": stop.workItemId, "stopline.stop.scope": "work_item" } : { "stopline.stop.scope": "task" }),
});

async function settleSpan<T>(t: Tracing, span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: t.api.SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Emits a span that ran elsewhere or earlier, from the ledger's facts: with derived ids (`ids`), under `parent`
 * (none: a root), from `start` to `end`. Used for a Stop's root and settlement and for tool calls.
 */
export function emitSpan(
  name: string,
  ids: TraceIds,
  parent: TraceIds | null,
  at: { start: Date; end: Date },
  attributes: Attributes,
  options: {
    error?: string;
    links?: Link[];
    kind?: (typeof SpanKinds)[keyof typeof SpanKinds];
    events?: { name: string; at: Date; attributes?: Attributes }[];
  } = {},
): void {
  const t = globalForTracing.stoplineTracing;
  if (!t) return;
  t.ids.fixed = ids;
  let span: Span;
  try {
    span = t.tracer.startSpan(
      name,
      { startTime: at.start, attributes, links: options.links, kind: options.kind ?? SpanKinds.internal, root: !parent },
      parent ? parentContext(t, parent) : t.api.ROOT_CONTEXT,
    );
  } finally {
    t.ids.fixed = null;
  }
  for (const e of options.events ?? []) span.addEvent(e.name, e.attributes ?? {}, e.at);
  if (options.error !== undefined) span.setStatus({ code: t.api.SpanStatusCode.ERROR, message: options.error });
  span.end(at.end < at.start ? at.start : at.end);
}

/** OpenTelemetry's SpanKind values (the API's enum, without loading the API where tracing is off). */
export const SpanKinds = { internal: 0, server: 1, consumer: 4 } as const;

export { stopTrace, taskTrace, toolCallSpan };
