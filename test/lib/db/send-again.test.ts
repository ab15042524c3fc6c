import { describe, expect, it } from "vitest";
import { sendAgainIfTransient } from "../../../lib/db/pg";

// A statement PostgreSQL aborted as a deadlock victim (40P01) or a serialization failure (40001) committed nothing:
// it is sent again. Anything else is the statement's answer and is thrown at once.

const failing = (code: string) => Object.assign(new Error(`aborted (${code})`), { code });

describe("sendAgainIfTransient", () => {
  it("a deadlock victim is sent again, and its next answer is the answer", async () => {
    let sent = 0;
    const answer = await sendAgainIfTransient(async () => {
      if (++sent < 3) throw failing(sent === 1 ? "40P01" : "40001");
      return "committed";
    });
    expect([answer, sent]).toEqual(["committed", 3]);
  });

  it("after the last attempt the abort is thrown; other errors are thrown at once", async () => {
    let sent = 0;
    await expect(
      sendAgainIfTransient(async () => {
        sent++;
        throw failing("40P01");
      }, 3),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(sent).toBe(3);

    sent = 0;
    await expect(
      sendAgainIfTransient(async () => {
        sent++;
        throw failing("23505"); // a unique violation is an answer, not a transient abort
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(sent).toBe(1);
  });
});
