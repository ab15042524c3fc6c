import { AppError, ErrorCode } from "../errors";
import { Mechanism } from "../ledger/states";
import type { EffectRef, ToolDefinition } from "./contract";

/**
 * Tools are registered once. Registration refuses a contract whose stop path cannot account for its work
 * (a tool that commits effects must be inspectable, or declare mechanism "none" and be reported as such).
 */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();

  register<I, O>(tool: ToolDefinition<I, O>): this {
    const problems = contractProblems(tool as ToolDefinition);
    if (problems.length)
      throw new AppError(ErrorCode.badRequest, `tool "${tool.name}" cannot be registered: ${problems.join("; ")}`, { tool: tool.name, problems });
    if (this.#tools.has(tool.name)) throw new AppError(ErrorCode.conflict, `tool "${tool.name}" is already registered`, { tool: tool.name });
    this.#tools.set(tool.name, tool as ToolDefinition);
    return this;
  }

  #fallback: ((name: string) => ToolDefinition | undefined) | null = null;

  /** Tools registered in this process, then those a live host runs for us (lib/tools/hosted: their contract is asked there). */
  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name) ?? this.#fallback?.(name);
  }

  /**
   * What a person reads for a side effect: its tool's own words (describeEffect), else the description recorded with
   * it, else the tool and the operation id. One answer for the review queue, a reversal request and the stop preview.
   */
  describeEffect(toolName: string, effect: EffectRef): string {
    const { id, workItemId, operationId, externalRecordId, externalVersion, description } = effect;
    const ref = { id, workItemId, operationId, externalRecordId, externalVersion, description };
    return this.get(toolName)?.describeEffect?.(ref) ?? description ?? `${toolName} ${operationId}`;
  }

  /** Only a tool registered in this process (its code runs here). */
  local(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** Where get() looks for a tool this process does not have (tools hosted by their owners, issue 23). */
  fallBackTo(lookup: (name: string) => ToolDefinition | undefined): this {
    this.#fallback = lookup;
    return this;
  }

  require(name: string): ToolDefinition {
    const tool = this.#tools.get(name);
    if (!tool) throw new AppError(ErrorCode.notFound, `no tool "${name}" is registered`, { tool: name });
    return tool;
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }
}

export function contractProblems(tool: ToolDefinition): string[] {
  const problems: string[] = [];
  if (!tool.name || !/^[\w.:-]{1,200}$/.test(tool.name)) problems.push("a name of letters, digits, . _ : - is required");
  if (typeof tool.run !== "function") problems.push("run(input, ctx) is required");
  if (tool.commitsEffect && !tool.inspect && tool.mechanism !== Mechanism.none) {
    problems.push(
      'it commits external effects but has no inspect() to ask the service what really happened, and does not declare mechanism "none" — a stop path that cannot account for its work must not ship',
    );
  }
  if (tool.mechanism === Mechanism.providerCancel && !tool.cancel) problems.push('mechanism "provider_cancel" needs cancel(ref)');
  if (tool.mechanism === Mechanism.rollback && !tool.rollback) problems.push('mechanism "rollback" needs rollback(ref)');
  if (tool.resources?.length && !tool.inspect) {
    problems.push(
      "it declares resources a call may hold but has no inspect() to report what a call whose answer was lost holds (written ahead: InspectOutcome.holds)",
    );
  }
  if (tool.resources?.some((r) => typeof r !== "string" || !/^[\w.:-]{1,100}$/.test(r)))
    problems.push("each declared resource kind is a name of letters, digits, . _ : - (at most 100)");
  if (!!tool.cleanup !== !!tool.verifyReleased)
    problems.push("cleanup(resource) and verifyReleased(resource) come together: a release that cannot be verified cannot be reported");
  if (tool.compensate && !tool.inspect) problems.push("compensate() needs inspect() to check the record's current version first");
  return problems;
}
