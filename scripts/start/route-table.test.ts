import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ROUTES, matchApiRoute } from "../../app/api/routes";

const ROOT = path.resolve(import.meta.dirname, "../..");
function routeFolders(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.isDirectory()) found.push(...routeFolders(path.join(dir, entry.name)));
    else if (entry.name === "route.ts") found.push(dir);
  }
  return found;
}

describe("the API's route table (app/api/routes.ts)", () => {
  it("names every route.ts under app/api, and nothing else: the server's API lane and Next.js serve the same routes", () => {
    expect(API_ROUTES.map((r) => r.file).sort()).toEqual(routeFolders("app/api").sort());
  });

  it("matches a path to its route and decodes its parameters", () => {
    expect(matchApiRoute("/api/tasks/a%20b/cancel")).toMatchObject({ route: { file: "app/api/tasks/[taskId]/cancel" }, params: { taskId: "a b" } });
    expect(matchApiRoute("/api/auth/sign-in/email")).toMatchObject({ route: { file: "app/api/auth/[...all]" } });
    expect(matchApiRoute("/api/nothing-here")).toBeNull();
  });
});
