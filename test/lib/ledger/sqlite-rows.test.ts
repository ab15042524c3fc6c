import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PRISMA_DIR } from "../../../lib/db/schema-source";
import { WORK_ITEM_BOOL_FIELDS, WORK_ITEM_DATE_FIELDS, WORK_ITEM_JSON_FIELDS } from "../../../lib/ledger/sql/sqlite";

/** The scalar fields of one model in prisma/models.prisma, by type (the one model source). */
function fieldsOf(model: string, type: "DateTime" | "Json" | "Boolean"): string[] {
  const source = readFileSync(path.join(PRISMA_DIR, "models.prisma"), "utf8");
  const body = new RegExp(`^model ${model} \\{([\\s\\S]*?)^\\}`, "m").exec(source)![1];
  return body
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(([name, t]) => name && !name.startsWith("//") && t?.replace("?", "") === type)
    .map(([name]) => name);
}

describe("a work item read by the SQLite hot path is typed as Prisma would type it", () => {
  it.each([
    ["DateTime", WORK_ITEM_DATE_FIELDS],
    ["Json", WORK_ITEM_JSON_FIELDS],
    ["Boolean", WORK_ITEM_BOOL_FIELDS],
  ] as const)("every %s field of WorkItem is converted", (type, listed) => {
    expect([...listed].sort()).toEqual(fieldsOf("WorkItem", type).sort());
  });
});
