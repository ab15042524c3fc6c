import { parseArgs } from "node:util";
import { parseTarget, REVISIONS, type Revision } from "./connection";
import { formatMcpReport, mcpLies, parseInspectOption, runMcpConformance } from "./run-mcp-conformance";

/**
 * `npm run conformance -- --mcp <url | stdio command> [--tools a,b] [--args tool=<json>] [--inspect tool=inspectTool@keyArg]
 *  [--inspect tool=resource:<uri with {idempotencyKey}>@keyArg] [--revision 2025-11-25]`
 * Prints the report per spec revision; exits 1 when the server lies about a cancellation, 2 on a usage error.
 */
export async function mcpConformanceCli(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        mcp: { type: "string" },
        tools: { type: "string" },
        args: { type: "string", multiple: true },
        inspect: { type: "string", multiple: true },
        revision: { type: "string", multiple: true },
        "grace-ms": { type: "string" },
      },
    });
    if (!values.mcp) throw new Error("--mcp <url or stdio command> is required");
    const args = Object.fromEntries(
      (values.args ?? []).map((a) => {
        const [tool, json] = a.split(/=(.*)/s, 2);
        return [tool, JSON.parse(json) as Record<string, unknown>];
      }),
    );
    const revisions = values.revision?.map((r) => {
      if (!REVISIONS.includes(r as Revision)) throw new Error(`--revision ${r}: one of ${REVISIONS.join(", ")}`);
      return r as Revision;
    });
    const report = await runMcpConformance(parseTarget(values.mcp), {
      tools: values.tools
        ?.split(",")
        .map((t) => t.trim())
        .filter(Boolean),
      args,
      inspect: Object.fromEntries((values.inspect ?? []).map(parseInspectOption)),
      revisions,
      graceMs: values["grace-ms"] ? Number(values["grace-ms"]) : undefined,
    });
    console.log(formatMcpReport(report));
    return mcpLies(report).length ? 1 : 0;
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
}
