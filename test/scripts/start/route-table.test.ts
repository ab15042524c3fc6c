import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ROUTES, matchApiRoute } from "../../../app/api/routes";
import { contract } from "../../../lib/api/contract";

const ROOT = path.resolve(import.meta.dirname, "../../..");
function routeFolders(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...routeFolders(path.join(dir, entry.name)));
    else if (entry.name === "route.ts") found.push(dir);
  }
  return found;
}

/** The HTTP methods a route.ts exports (read from its source: importing every handler would open the database). */
function methodsOf(file: string): string[] {
  const source = readFileSync(path.join(ROOT, file, "route.ts"), "utf8");
  const methods = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:const|async function|function)\s+(GET|POST|PATCH|PUT|DELETE)\b/g)) methods.add(m[1]);
  for (const m of source.matchAll(/export\s*\{([^}]*)\}/g))
    for (const name of m[1].split(",").map(
      (x) =>
        x
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
    ))
      if (/^(GET|POST|PATCH|PUT|DELETE)$/.test(name)) methods.add(name);
  return [...methods];
}

/** Routes with a protocol of their own, outside the REST contract (each documented where it is served). */
const OUTSIDE_THE_CONTRACT: Record<string, string> = {
  "app/api/auth/[...all]": "Better Auth's own endpoints (console sign-in)",
  "app/api/mcp": "the MCP gateway (Streamable HTTP, JSON-RPC)",
};

describe("the API's route table (app/api/routes.ts)", () => {
  it("serves every route of the contract (lib/api/contract.ts) with its method and parameter names, and the contract names every route it serves", () => {
    const served = new Set<string>();
    for (const [name, c] of Object.entries(contract) as [string, { method: string; path: string }][]) {
      const params = [...c.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const matched = matchApiRoute(c.path.replace(/\{[^}]+\}/g, "x"));
      expect(matched, `${name}: ${c.method} ${c.path} has no route`).not.toBeNull();
      expect(matched!.route.names, `${name}: parameter names`).toEqual(params);
      expect(methodsOf(matched!.route.file), `${name}: ${matched!.route.file}/route.ts exports no ${c.method}`).toContain(c.method);
      served.add(`${c.method} ${matched!.route.file}`);
    }
    const outside = API_ROUTES.flatMap((r) => methodsOf(r.file).map((m) => `${m} ${r.file}`)).filter((x) => !served.has(x));
    expect(outside.filter((x) => !(x.split(" ")[1] in OUTSIDE_THE_CONTRACT))).toEqual([]);
  });

  it("derives each route's pattern from its folder: [name] is one segment, [...name] the rest, dots are literal", () => {
    expect(matchApiRoute("/api/openapi.json")?.route.file).toBe("app/api/openapi.json");
    expect(matchApiRoute("/api/openapiXjson")).toBeNull();
    expect(matchApiRoute("/api/tasks/t1/work-items/start")).toMatchObject({
      route: { file: "app/api/tasks/[taskId]/work-items/start" },
      params: { taskId: "t1" },
    });
    expect(matchApiRoute("/api/auth/a/b/c")).toMatchObject({ params: { all: "a/b/c" } });
    expect(matchApiRoute("/api/tasks/t1/x/cancel")).toBeNull();
  });

  it("names every route.ts under app/api, and nothing else: the server's API lane and Next.js serve the same routes", () => {
    expect(API_ROUTES.map((r) => r.file).sort()).toEqual(routeFolders("app/api").sort());
  });

  it("matches a path to its route and decodes its parameters", () => {
    expect(matchApiRoute("/api/tasks/a%20b/cancel")).toMatchObject({ route: { file: "app/api/tasks/[taskId]/cancel" }, params: { taskId: "a b" } });
    expect(matchApiRoute("/api/auth/sign-in/email")).toMatchObject({ route: { file: "app/api/auth/[...all]" } });
    expect(matchApiRoute("/api/nothing-here")).toBeNull();
  });
});
