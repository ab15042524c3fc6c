import { describe, expect, it } from "vitest";
import { contract } from "../../../lib/api/contract";
import { forbiddenMessage } from "../../../lib/api/forbidden";

describe("the 403 sentence: what was refused, why, and what to use instead", () => {
  it.each([
    [
      "a worker token stops a task",
      contract.cancelTask,
      { role: "worker" },
      "A worker token cannot stop a task: worker tokens only run work items (claim, heartbeat, checkpoint, report); use an agent or admin token, or sign in as the task's owner, an operator or an admin.",
    ],
    [
      "an agent token claims work",
      contract.claim,
      { role: "agent" },
      "An agent token cannot claim work items: agent tokens create, run and stop tasks, and read the ledger; use a worker or admin token, or sign in as an admin.",
    ],
    [
      "support stops a task",
      contract.cancelTask,
      { role: "support", kind: "person" },
      "A support cannot stop a task: support reads everything and changes nothing; use an agent or admin token, or sign in as the task's owner, an operator or an admin.",
    ],
    [
      "an operator creates a token",
      contract.createToken,
      { role: "operator", kind: "person" },
      "An operator cannot create API tokens: operators stop tasks and decide review items, but do not administer; use an admin token, or sign in as an admin.",
    ],
    [
      "a user decides a review item",
      contract.decideReviewItem,
      { role: "user", kind: "person" },
      "A user cannot decide review items: people with the user role work on their own conversations and tasks; use an admin token, or sign in as an operator or an admin.",
    ],
  ] as const)("%s", (_label, route, principal, sentence) => {
    expect(forbiddenMessage(route, principal)).toBe(sentence);
  });

  it("is one sentence and never the route's description, for every route and every role it refuses", () => {
    for (const route of Object.values(contract)) {
      if (route.auth === "public") continue;
      for (const [role, kind] of [
        ["worker", "token"],
        ["agent", "token"],
        ["user", "person"],
        ["support", "person"],
        ["operator", "person"],
      ] as const) {
        if ((route.auth as readonly string[]).includes(role)) continue;
        const message = forbiddenMessage(route, { role, kind });
        expect(message.split(". ")).toHaveLength(1);
        expect(message.endsWith(".")).toBe(true);
        expect(message).not.toContain(route.summary.toLowerCase());
        expect(message).toMatch(/; (use|sign in as) /);
      }
    }
  });
});
