import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { APICallError } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { modelFromEnvironment, planWithModel, type PlannerAttempt } from "../../../lib/cancellation/model-planner";
import { rulePlan, type ActiveToolCall, type PlanStep } from "../../../lib/cancellation/plan";
import { fillPlannerPrompt, MAX_PARTIAL_RESULT_CHARS, PLANNER_PROMPT_TEMPLATE } from "../../../lib/cancellation/prompt-template";

// Four children alive at the boundary, one of each kind the stop matrix distinguishes.
const CALLS: ActiveToolCall[] = [
  {
    id: "wi_queued_report",
    tool: "generate_report",
    kind: "local",
    status: "queued",
    phase: "queued",
    mechanism: "abort_signal",
    commitsEffect: false,
    supportsRollback: false,
    started_at: null,
    partial_result: null,
  },
  {
    id: "wi_running_search",
    tool: "web_search",
    kind: "local",
    status: "running",
    phase: "partial_result_received",
    mechanism: "abort_signal",
    commitsEffect: false,
    supportsRollback: false,
    started_at: "2026-01-05T10:00:00.000Z",
    partial_result: { hits: ["a", "b"] },
  },
  {
    id: "wi_running_import",
    tool: "bulk_import",
    kind: "remote",
    status: "running",
    phase: "in_flight",
    mechanism: "none",
    commitsEffect: true,
    supportsRollback: false,
    started_at: "2026-01-05T10:00:01.000Z",
    partial_result: null,
  },
  {
    id: "wi_submitted_crm",
    tool: "crm_create_record",
    kind: "external",
    status: "submitted",
    phase: "awaiting_callback",
    mechanism: "rollback",
    commitsEffect: true,
    supportsRollback: true,
    started_at: "2026-01-05T10:00:02.000Z",
    partial_result: null,
  },
];

type CallOptions = Parameters<MockLanguageModelV3["doGenerate"]>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;

const step = (tool_call_id: string, action: PlanStep["action"]): PlanStep => ({
  tool_call_id,
  action,
  cleanup_steps: ["release the session"],
  user_message: `Handling ${tool_call_id}.`,
});

/** A plan that validatePlan accepts, and that differs from the rule plan (so "source: model" is visible). */
const VALID_PLAN = {
  actions: [
    step("wi_queued_report", "abort"),
    step("wi_running_search", "abort"), // the rules would await the partial result
    step("wi_running_import", "notify"),
    step("wi_submitted_crm", "rollback"), // the rules would abort (reconcile) it
  ],
};

const answer = (text: string): GenerateResult => ({
  content: [{ type: "text", text }],
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 50, text: 50, reasoning: undefined },
  },
  warnings: [],
});

/** All the text of one request the model received. */
function promptText(call: CallOptions): string {
  return call.prompt
    .flatMap((message) => (typeof message.content === "string" ? [message.content] : message.content.map((part) => ("text" in part ? part.text : ""))))
    .join("\n");
}

/** A mock model that answers its n-th request with the n-th answer (an object as JSON; an Error is thrown). */
function mock(...answers: (string | object | Error)[]) {
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    doGenerate: async () => {
      const next = answers[model.doGenerateCalls.length - 1];
      if (next === undefined) throw new Error("the mock was asked more often than expected");
      if (next instanceof Error) throw next;
      return answer(typeof next === "string" ? next : JSON.stringify(next));
    },
  });
  return model;
}

const withPlan = (replace: (actions: PlanStep[]) => PlanStep[]) => ({ actions: replace(VALID_PLAN.actions.map((s) => ({ ...s }))) });

describe("planWithModel", () => {
  it("a valid model plan is used, and the prompt carries every active tool call and the reason", async () => {
    const model = mock(VALID_PLAN);
    const logged: PlannerAttempt[] = [];
    const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model, log: (a) => logged.push(a) });

    expect(result.source).toBe("model");
    expect(result.steps).toEqual(VALID_PLAN.actions);
    expect(result.fallbackReason).toBeUndefined();
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0].errors).toEqual([]);
    expect(logged).toEqual(result.attempts);

    expect(model.doGenerateCalls).toHaveLength(1);
    const request = model.doGenerateCalls[0];
    const text = promptText(request);
    for (const call of CALLS) expect(text).toContain(`"id": "${call.id}"`);
    expect(text).toContain("Cancellation reason: user_interrupt");
    expect(text).not.toMatch(/\{\{[A-Z_]+\}\}/); // every placeholder filled
    // The seed's ACTIVE_TOOL_CALLS fields, with the coarse status and the allowed actions.
    expect(text).toContain(`"status": "awaiting_callback"`);
    expect(text).toContain(`"supports_rollback": true`);
    expect(text).toMatch(/"allowed_actions": \[\s*"abort"\s*\]/); // the queued call
    // The model is asked for the plan's structure and given no tools: it cannot cancel or roll back itself.
    expect(request.responseFormat).toMatchObject({ type: "json", name: "cancellation_plan" });
    expect(request.tools ?? []).toEqual([]);
  });

  it("invalid then valid: the second request carries the first attempt's validation errors, and the second plan is used", async () => {
    const omitsOne = withPlan((a) => a.filter((s) => s.tool_call_id !== "wi_running_import"));
    const model = mock(omitsOne, VALID_PLAN);
    const result = await planWithModel({ calls: CALLS, reason: "timeout", model });

    expect(result.source).toBe("model");
    expect(result.steps).toEqual(VALID_PLAN.actions);
    expect(result.attempts.map((a) => a.errors)).toEqual([["wi_running_import (bulk_import): missing from the plan"], []]);
    expect(model.doGenerateCalls).toHaveLength(2);
    const first = promptText(model.doGenerateCalls[0]);
    const second = promptText(model.doGenerateCalls[1]);
    expect(first).not.toContain("missing from the plan");
    expect(second).toContain("Your previous plan was rejected");
    expect(second).toContain("wi_running_import (bulk_import): missing from the plan");
    expect(second).toContain("Cancellation reason: timeout");
  });

  it("invalid twice: the rule-based plan, with a fallbackReason naming both attempts' errors", async () => {
    const queuedNoop = withPlan((a) => a.map((s) => (s.tool_call_id === "wi_queued_report" ? { ...s, action: "noop" } : s)));
    const unknownId = withPlan((a) => [...a, step("wi_made_up", "abort")]);
    const model = mock(queuedNoop, unknownId);
    const result = await planWithModel({ calls: CALLS, reason: "parent_abort", model });

    expect(result.source).toBe("rules");
    expect(result.steps).toEqual(rulePlan(CALLS).steps);
    expect(result.attempts).toHaveLength(2);
    expect(result.fallbackReason).toContain("no valid model plan after 2 attempts, using the rule-based plan");
    expect(result.fallbackReason).toContain(`attempt 1: wi_queued_report (generate_report, queued): action "noop" is not allowed; allowed: abort`);
    expect(result.fallbackReason).toContain("attempt 2: wi_made_up: not an active tool call");
  });

  describe("each malformed plan is rejected, and after two failures the rules are used", () => {
    const setStatus = (id: string, action: PlanStep["action"]) => withPlan((a) => a.map((s) => (s.tool_call_id === id ? { ...s, action } : s)));
    const cases: { name: string; answer: string | object; error: string | RegExp }[] = [
      {
        name: "a queued item left to run (noop)",
        answer: setStatus("wi_queued_report", "noop"),
        error: `wi_queued_report (generate_report, queued): action "noop" is not allowed`,
      },
      {
        name: "a queued item left to run (await_partial)",
        answer: setStatus("wi_queued_report", "await_partial"),
        error: `wi_queued_report (generate_report, queued): action "await_partial" is not allowed`,
      },
      {
        name: "an unstoppable item 'aborted' (mechanism none)",
        answer: setStatus("wi_running_import", "abort"),
        error: `wi_running_import (bulk_import, running): action "abort" is not allowed; allowed: notify`,
      },
      { name: "an item omitted", answer: withPlan((a) => a.slice(1)), error: "wi_queued_report (generate_report): missing from the plan" },
      {
        name: "an item named twice",
        answer: withPlan((a) => [...a, step("wi_running_search", "await_partial")]),
        error: "wi_running_search (web_search): appears 2 times",
      },
      { name: "an unknown id", answer: withPlan((a) => [...a, step("wi_other_task", "abort")]), error: "wi_other_task: not an active tool call" },
      {
        name: "an unknown action",
        answer: withPlan((a) => [{ ...a[0], action: "cancel_everything" as PlanStep["action"] }, ...a.slice(1)]),
        error: /^actions\.0\.action: /,
      },
      { name: "an extra field (approved: true)", answer: { ...VALID_PLAN, approved: true }, error: /^plan: .*approved/ },
      { name: "non-JSON output", answer: "Sure! I would abort everything and roll back the CRM record.", error: /^the answer is not a JSON object/ },
      { name: "JSON in a code fence", answer: `\`\`\`json\n${JSON.stringify(VALID_PLAN)}\n\`\`\``, error: /^the answer is not a JSON object/ },
      { name: "an empty answer", answer: "", error: "the answer is not a JSON object (empty answer); answer with only the JSON plan" },
    ];
    for (const c of cases) {
      it(`${c.name} → rejected twice → rules`, async () => {
        const model = mock(c.answer, c.answer);
        const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model });
        expect(model.doGenerateCalls).toHaveLength(2);
        expect(result.source).toBe("rules");
        expect(result.steps).toEqual(rulePlan(CALLS).steps);
        for (const attempt of result.attempts) {
          expect(attempt.errors.length).toBeGreaterThan(0);
          if (typeof c.error === "string") expect(attempt.errors).toContainEqual(expect.stringContaining(c.error));
          else expect(attempt.errors.some((e) => (c.error as RegExp).test(e))).toBe(true);
        }
        // The retry quoted the first rejection back to the model.
        expect(promptText(model.doGenerateCalls[1])).toContain(result.attempts[0].errors[0]);
      });
    }
  });

  it("the model throwing twice (endpoint down): rules, with the error in fallbackReason", async () => {
    // What the provider throws for a refused connection: a retryable APICallError.
    const down = new APICallError({
      message: "connect ECONNREFUSED 127.0.0.1:11434",
      url: "http://127.0.0.1:11434/v1/chat/completions",
      requestBodyValues: {},
      isRetryable: true,
    });
    const model = mock(down, down, down, down, down, down);
    const result = await planWithModel({ calls: CALLS, reason: "circuit_breaker", model });

    expect(model.doGenerateCalls).toHaveLength(2); // exactly our one retry: the SDK's own retries are off
    expect(result.source).toBe("rules");
    expect(result.steps).toEqual(rulePlan(CALLS).steps);
    expect(result.attempts.map((a) => a.errors)).toEqual([
      ["model call failed: connect ECONNREFUSED 127.0.0.1:11434"],
      ["model call failed: connect ECONNREFUSED 127.0.0.1:11434"],
    ]);
    expect(result.fallbackReason).toContain("connect ECONNREFUSED 127.0.0.1:11434");
  });

  it("a real endpoint that is down (connection refused on the loopback): rules, with the error in fallbackReason", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const model = modelFromEnvironment({ STOPLINE_PLANNER_MODEL: "test-model", STOPLINE_PLANNER_BASE_URL: `http://127.0.0.1:${port}/v1` })!;

    const started = Date.now();
    const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model, signal: AbortSignal.timeout(10_000) });
    expect(Date.now() - started).toBeLessThan(1_500); // no backoff between retries: Stop is not held up
    expect(result.source).toBe("rules");
    expect(result.attempts).toHaveLength(2);
    expect(result.fallbackReason).toMatch(/attempt 1: model call failed: .+; attempt 2: model call failed: /);
  });

  it("the model throwing once, then answering: the answer is used", async () => {
    const model = mock(new Error("502 Bad Gateway"), VALID_PLAN);
    const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model });
    expect(result.source).toBe("model");
    expect(promptText(model.doGenerateCalls[1])).toContain("model call failed: 502 Bad Gateway");
  });

  it("an aborted planner falls back to the rules without a retry, and never throws", async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        controller.abort(new Error("planner deadline passed"));
        options.abortSignal?.throwIfAborted();
        return answer(JSON.stringify(VALID_PLAN));
      },
    });
    const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model, signal: controller.signal });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(result.source).toBe("rules");
    expect(result.fallbackReason).toMatch(/^model planner aborted \(planner deadline passed\) after 1 of 2 attempts/);

    const untouched = mock(VALID_PLAN);
    const before = await planWithModel({ calls: CALLS, reason: "user_interrupt", model: untouched, signal: AbortSignal.abort() });
    expect(untouched.doGenerateCalls).toHaveLength(0);
    expect(before.source).toBe("rules");
  });

  it("no active tool calls: the model is not asked", async () => {
    const model = mock(VALID_PLAN);
    const result = await planWithModel({ calls: [], reason: "user_interrupt", model });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(result).toMatchObject({ source: "rules", steps: [], attempts: [] });
  });

  it("a throwing logger does not change the plan", async () => {
    const result = await planWithModel({
      calls: CALLS,
      reason: "user_interrupt",
      model: mock(VALID_PLAN),
      log: () => {
        throw new Error("log sink down");
      },
    });
    expect(result.source).toBe("model");
  });
});

describe("the prompt template", () => {
  it("has exactly the three placeholders, each filled once, and cuts long partial results", () => {
    expect([...PLANNER_PROMPT_TEMPLATE.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((m) => m[1]).sort()).toEqual([
      "ACTIVE_TOOL_CALLS",
      "CANCELLATION_REASON",
      "CONSTRAINTS",
    ]);
    const text = fillPlannerPrompt({
      activeToolCalls: [
        {
          id: "wi_1",
          tool: "t",
          status: "in_flight",
          started_at: null,
          mechanism: "abort_signal",
          supports_rollback: false,
          allowed_actions: ["abort"],
          partial_result: { rows: "x".repeat(MAX_PARTIAL_RESULT_CHARS * 2), note: "{{CONSTRAINTS}}" },
        },
      ],
      reason: "timeout",
      constraints: ["extra rule"],
    });
    expect(text).toContain("[truncated:");
    expect(text.length).toBeLessThan(PLANNER_PROMPT_TEMPLATE.length + MAX_PARTIAL_RESULT_CHARS + 1_000);
    expect(text).toContain("- extra rule");
    expect(text.match(/- extra rule/g)).toHaveLength(1); // a placeholder inside tool data is not expanded
  });
});

describe("modelFromEnvironment", () => {
  it("returns null without STOPLINE_PLANNER_MODEL (the rule-based planner is the default)", () => {
    expect(modelFromEnvironment({})).toBeNull();
    expect(modelFromEnvironment({ STOPLINE_PLANNER_MODEL: "  ", STOPLINE_PLANNER_BASE_URL: "http://127.0.0.1:1/v1" })).toBeNull();
  });

  it("returns a model object with STOPLINE_PLANNER_MODEL", () => {
    const model = modelFromEnvironment({ STOPLINE_PLANNER_MODEL: "llama3.2:3b", STOPLINE_PLANNER_BASE_URL: "http://localhost:11434/v1" });
    expect(model).not.toBeNull();
    expect(model).toMatchObject({ modelId: "llama3.2:3b", provider: "stopline-planner.chat" });
    expect(typeof model!.doGenerate).toBe("function");
  });

  it("talks to the configured OpenAI-compatible endpoint: JSON mode, no tools, the API key, and a valid plan used", async () => {
    const { result, requests } = await planAgainstLocalEndpoint({ STOPLINE_PLANNER_API_KEY: "sk-local-test" });
    expect(result.source).toBe("model");
    expect(requests).toHaveLength(1);
    expect(requests[0].url).toBe("/v1/chat/completions");
    expect(requests[0].headers.authorization).toBe("Bearer sk-local-test");
    expect(requests[0].body).toMatchObject({ model: "test-model", temperature: 0, response_format: { type: "json_object" } });
    expect(requests[0].body.tools).toBeUndefined();
    expect(JSON.stringify(requests[0].body.messages)).toContain("wi_submitted_crm");
  });

  it("STOPLINE_PLANNER_STRUCTURED_OUTPUTS=1 sends the plan's JSON schema; no API key, no Authorization header", async () => {
    const { result, requests } = await planAgainstLocalEndpoint({ STOPLINE_PLANNER_STRUCTURED_OUTPUTS: "1" });
    expect(result.source).toBe("model");
    expect(requests[0].headers.authorization).toBeUndefined();
    expect(requests[0].body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "cancellation_plan", schema: { type: "object", required: ["actions"], additionalProperties: false } },
    });
  });
});

/** planWithModel through modelFromEnvironment against an OpenAI-compatible server on the loopback address. */
async function planAgainstLocalEndpoint(env: Record<string, string>) {
  const requests: { url?: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> }[] = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    requests.push({ url: req.url, headers: req.headers, body: JSON.parse(raw) });
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "test-model",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(VALID_PLAN) } }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const model = modelFromEnvironment({ STOPLINE_PLANNER_MODEL: "test-model", STOPLINE_PLANNER_BASE_URL: `http://127.0.0.1:${port}/v1`, ...env })!;
    const result = await planWithModel({ calls: CALLS, reason: "user_interrupt", model, signal: AbortSignal.timeout(10_000) });
    return { result, requests };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
