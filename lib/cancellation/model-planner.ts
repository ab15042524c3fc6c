import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, NoObjectGeneratedError, Output, type LanguageModel } from "ai";
import { allowedActions, PlanSchema, rulePlan, validatePlan, type ActiveToolCall, type CancellationPlan } from "./plan";
import { fillPlannerPrompt, type PromptToolCall } from "./prompt-template";

/**
 * The optional model planner (invariant 10: the model advises, the application decides).
 *
 * A model is asked for a cancellation plan through the seed's prompt template. Its answer is only advice:
 * it is used only when `validatePlan` accepts it (every active item exactly once, allowed actions only);
 * an invalid or unparsable answer, or a failed call, is retried ONCE with the errors appended to the
 * constraints; a second failure yields the rule-based plan, with `fallbackReason` for the ledger.
 *
 * What this does NOT do: execute anything. The model is given no tools, so it cannot call cancellation,
 * rollback or anything else; whatever the plan says, the executor still stops queued items and runs the
 * verification gate. Nor does it bound its own time: pass `signal` (e.g. `AbortSignal.timeout(…)`) so a
 * hung endpoint cannot delay Stop — an aborted planner falls back to the rules at once, it never throws.
 */

export type CancellationReason = "user_interrupt" | "timeout" | "parent_abort" | "circuit_breaker";

/**
 * A language model object. A bare model id string is excluded on purpose: the AI SDK would resolve it
 * through its global default provider (the Vercel AI Gateway), sending tool call data to a service that
 * nobody configured here.
 */
export type PlannerModel = Exclude<LanguageModel, string>;

/** One request to the model and what was wrong with its answer (empty `errors` = accepted). */
export interface PlannerAttempt {
  attempt: 1 | 2;
  errors: string[];
  /** The model's raw answer, cut to MAX_RECORDED_OUTPUT_CHARS (absent when the call itself failed). */
  output?: string;
  durationMs: number;
}

export interface PlanWithModelInput {
  calls: ActiveToolCall[];
  reason: CancellationReason;
  model: PlannerModel;
  signal?: AbortSignal;
  /** Called after each attempt (the engine logs it); a throwing logger is ignored. */
  log?: (attempt: PlannerAttempt) => void;
}

export type ModelPlanResult = CancellationPlan & { attempts: PlannerAttempt[] };

const MAX_ATTEMPTS = 2;
const MAX_RECORDED_OUTPUT_CHARS = 2_000;
/** Errors quoted back to the model and into fallbackReason; the rest are counted. */
const MAX_QUOTED_ERRORS = 12;

export async function planWithModel(input: PlanWithModelInput): Promise<ModelPlanResult> {
  const { calls, reason, model, signal, log } = input;
  const attempts: PlannerAttempt[] = [];
  if (calls.length === 0) return { ...rulePlan(calls), fallbackReason: "no active tool calls: the model was not asked", attempts };

  const activeToolCalls = calls.map(toPromptToolCall);
  const constraints: string[] = [];
  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    if (signal?.aborted) break;
    const attempt = await askModel({ model, signal, calls, attempt: n as 1 | 2, prompt: fillPlannerPrompt({ activeToolCalls, reason, constraints }) });
    attempts.push(attempt.record);
    try {
      log?.(attempt.record);
    } catch {
      // Logging must never change the plan.
    }
    if (attempt.steps) return { source: "model", steps: attempt.steps, attempts };
    constraints.push(`Your previous plan was rejected for these reasons; fix every one of them:`, ...quoteErrors(attempt.record.errors).map((e) => `  ${e}`));
  }

  return { ...rulePlan(calls), fallbackReason: fallbackReason(attempts, signal), attempts };
}

function toPromptToolCall(call: ActiveToolCall): PromptToolCall {
  return {
    id: call.id,
    tool: call.tool,
    status: call.phase,
    started_at: call.started_at,
    partial_result: call.partial_result ?? null,
    mechanism: call.mechanism,
    supports_rollback: call.supportsRollback,
    allowed_actions: allowedActions(call),
  };
}

async function askModel(input: {
  model: PlannerModel;
  signal?: AbortSignal;
  calls: ActiveToolCall[];
  attempt: 1 | 2;
  prompt: string;
}): Promise<{ record: PlannerAttempt; steps: CancellationPlan["steps"] | null }> {
  const started = performance.now();
  const record = (errors: string[], output?: string): PlannerAttempt => ({
    attempt: input.attempt,
    errors,
    ...(output !== undefined && { output: output.slice(0, MAX_RECORDED_OUTPUT_CHARS) }),
    durationMs: Math.round(performance.now() - started),
  });

  let answer: unknown;
  let text: string;
  try {
    const result = await generateText({
      model: input.model,
      prompt: input.prompt,
      // The schema becomes the provider's response format (JSON mode, or a JSON schema where supported);
      // the AI SDK parses and checks it, and validatePlan below checks what the schema cannot.
      output: Output.object({ schema: PlanSchema, name: "cancellation_plan", description: "One action per active tool call." }),
      // No `tools`: the model can only answer with text. It cannot call cancellation or rollback itself.
      temperature: 0,
      // Our retry policy is the one retry below, with the errors; the SDK's backoff retries would hold up Stop.
      maxRetries: 0,
      abortSignal: input.signal,
    });
    answer = result.output;
    text = result.text;
  } catch (error) {
    if (!NoObjectGeneratedError.isInstance(error)) return { record: record([`model call failed: ${messageOf(error)}`]), steps: null };
    // The model answered but not with a schema-valid object: say precisely what is wrong with it.
    text = error.text ?? "";
    const parsed = parseJson(text);
    if (!parsed.ok) return { record: record([`the answer is not a JSON object (${parsed.error}); answer with only the JSON plan`], text), steps: null };
    answer = parsed.value;
  }

  const { plan, errors } = validatePlan(answer, input.calls);
  return { record: record(errors, text), steps: plan };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: false, error: "empty answer" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: messageOf(error) };
  }
}

function quoteErrors(errors: string[]): string[] {
  if (errors.length <= MAX_QUOTED_ERRORS) return errors;
  return [...errors.slice(0, MAX_QUOTED_ERRORS), `… and ${errors.length - MAX_QUOTED_ERRORS} more`];
}

function fallbackReason(attempts: PlannerAttempt[], signal?: AbortSignal): string {
  const described = attempts.map((a) => `attempt ${a.attempt}: ${quoteErrors(a.errors).join("; ")}`);
  if (attempts.length < MAX_ATTEMPTS && signal?.aborted) {
    return [`model planner aborted (${messageOf(signal.reason)}) after ${attempts.length} of ${MAX_ATTEMPTS} attempts`, ...described].join("; ");
  }
  return [`no valid model plan after ${attempts.length} attempts, using the rule-based plan`, ...described].join("; ");
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return error === undefined ? "aborted" : String(error);
}

/** Where the planner talks when STOPLINE_PLANNER_BASE_URL is unset: a local server (Ollama), so tool call data
 * never leaves the machine unless someone configured a remote endpoint. */
export const DEFAULT_PLANNER_BASE_URL = "http://localhost:11434/v1";

/**
 * The planner model configured by environment, for any OpenAI-compatible chat endpoint (Ollama, vLLM,
 * LM Studio, llama.cpp, OpenAI itself …):
 * - `STOPLINE_PLANNER_MODEL` — the model id; unset (or empty) → null: the rule-based planner is the default.
 * - `STOPLINE_PLANNER_BASE_URL` — e.g. http://localhost:11434/v1 (the default, Ollama).
 * - `STOPLINE_PLANNER_API_KEY` — optional bearer token.
 * - `STOPLINE_PLANNER_STRUCTURED_OUTPUTS=1` — optional: send the plan's JSON schema as `response_format`
 *   (json_schema) instead of plain JSON mode, for servers that support it.
 */
export function modelFromEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): PlannerModel | null {
  const modelId = env.STOPLINE_PLANNER_MODEL?.trim();
  if (!modelId) return null;
  const provider = createOpenAICompatible({
    name: "stopline-planner",
    baseURL: env.STOPLINE_PLANNER_BASE_URL?.trim() || DEFAULT_PLANNER_BASE_URL,
    apiKey: env.STOPLINE_PLANNER_API_KEY?.trim() || undefined,
    supportsStructuredOutputs: env.STOPLINE_PLANNER_STRUCTURED_OUTPUTS === "1" || env.STOPLINE_PLANNER_STRUCTURED_OUTPUTS === "true",
  });
  return provider.chatModel(modelId);
}
