import { describe, expect, it } from "vitest";
import { understand } from "../../../lib/agent/understand";

describe("the demo agent understands a handful of requests", () => {
  it.each([
    ["Please order two chairs", { type: "order", items: [{ sku: "chair", quantity: 2 }] }],
    [
      "buy 3 lamps and a desk",
      {
        type: "order",
        items: [
          { sku: "lamp", quantity: 3 },
          { sku: "desk", quantity: 1 },
        ],
      },
    ],
    ["order two oak chairs and 2 more chairs", { type: "order", items: [{ sku: "chair", quantity: 4 }] }],
    ["export a report of 1,500 rows", { type: "export", rows: 1500 }],
    ["run the sales report", { type: "export", rows: 200 }],
    ["record customer Ada Lovelace ada@example.com and email them", { type: "record_and_email", name: "Ada Lovelace", email: "ada@example.com" }],
    ["what's the weather?", { type: "unknown" }],
    ["did my order go through?", { type: "question", about: "order" }],
    ["Did the export finish?", { type: "question", about: "export" }],
    ["was the email sent?", { type: "question", about: "email" }],
    ["what happened?", { type: "question", about: null }],
    ["order some furniture", { type: "unknown" }],
  ])("%s", (text, intent) => {
    expect(understand(text)).toEqual(intent);
  });
});
