import { describe, expect, it } from "vitest";
import { compensationConflict } from "../../../lib/review/conflict";

describe("compensationConflict (offer only the choices still possible)", () => {
  it("no evidence, or the record still at the bound version: no conflict, approval offered", () => {
    expect(compensationConflict({ expectedVersion: "1" }, null)).toBeNull();
    expect(compensationConflict({ expectedVersion: "1" }, { currentVersion: "1", editedBy: [] })).toBeNull();
  });

  it("someone else wrote the record: the agent's version, the current one, who, and each write (the agent's own left out)", () => {
    const evidence = {
      createdVersion: "1",
      currentVersion: 3,
      editedBy: ["bob@crm"],
      checkedAt: "2026-12-01T14:05:00Z",
      laterWrites: [
        { version: 2, by: "bob@crm", action: "phone 555-0100 → 555-0199", at: "2026-12-01T14:03:00Z" },
        { version: 3, by: "agent", action: "touch", at: null },
      ],
    };
    expect(compensationConflict({ expectedVersion: "1" }, evidence)).toEqual({
      agentVersion: "1",
      currentVersion: "3",
      editedBy: ["bob@crm"],
      checkedAt: "2026-12-01T14:05:00Z",
      writes: [{ version: "2", by: "bob@crm", action: "phone 555-0100 → 555-0199", at: "2026-12-01T14:03:00Z" }],
    });
  });

  it("a service that gives no writes still yields who and the versions", () => {
    expect(compensationConflict({ expectedVersion: "4" }, { currentVersion: "5" })).toMatchObject({
      agentVersion: "4",
      currentVersion: "5",
      editedBy: [],
      writes: [],
    });
  });
});
