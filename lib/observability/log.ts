import { format } from "node:util";
import type { Logger } from "pino";
import { currentScope, wantScopes } from "./scope";
import { activeSpanContext } from "./tracing";

/**
 * STOPLINE_LOG_FORMAT=json: every line this process writes to its console becomes one JSON object (pino) with the
 * time, level, message and — when the code that wrote it works on one — `task_id`, `work_item_id`, `trace_id` and
 * `span_id` (scope.ts, set by the engine's steps and the runners' tool calls; the trace ids are the spans' when
 * traces are exported, the derived ones otherwise). Errors keep their stack (`err`). Unset (or `text`): the console
 * as it is. One switch for the whole process: console.* is routed through the logger, so nothing prints plain text
 * into a JSON stream.
 */
type Level = "debug" | "info" | "warn" | "error";
const globalForLog = globalThis as unknown as { stoplineLog?: Logger };

export function logFields(): Record<string, string> {
  const scope = currentScope();
  const span = activeSpanContext();
  const traceId = span?.traceId ?? scope?.traceId;
  const spanId = span?.spanId ?? scope?.spanId;
  return {
    ...(scope?.taskId ? { task_id: scope.taskId } : {}),
    ...(scope?.workItemId ? { work_item_id: scope.workItemId } : {}),
    ...(traceId ? { trace_id: traceId } : {}),
    ...(spanId ? { span_id: spanId } : {}),
  };
}

/** Installs JSON logging when STOPLINE_LOG_FORMAT=json (once per process); returns whether it is on. */
export async function startJsonLogs(options: { destination?: NodeJS.WritableStream; name?: string } = {}): Promise<boolean> {
  const wanted = (process.env.STOPLINE_LOG_FORMAT ?? "text").toLowerCase();
  if (wanted !== "json") return false;
  if (globalForLog.stoplineLog) return true;
  const { default: pino } = await import("pino"); // loaded only when asked for
  if (globalForLog.stoplineLog) return true;
  const logger = pino(
    {
      name: options.name ?? process.env.STOPLINE_PROCESS_NAME ?? "stopline",
      level: process.env.STOPLINE_LOG_LEVEL ?? "debug",
      base: { pid: process.pid },
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: logFields,
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
  globalForLog.stoplineLog = logger;
  wantScopes();
  const route =
    (level: Level) =>
    (...args: unknown[]) => {
      const error = args.find((a): a is Error => a instanceof Error);
      const text = format(...args.map((a) => (a instanceof Error ? a.message : a)));
      if (error) logger[level]({ err: error }, text);
      else logger[level](text);
    };
  console.log = route("info");
  console.info = route("info");
  console.debug = route("debug");
  console.warn = route("warn");
  console.error = route("error");
  return true;
}
