import { describe, expect, it } from "vitest";
import { checkSignature, computeSignature, signatureHeader, verifySignature } from "../../../lib/escalation/signature";

const secret = "whsec_0123456789abcdef";
const body = JSON.stringify({ event: "review_item.escalated", reviewItem: { id: "r1" } });

describe("Stopline-Signature", () => {
  it("t=<unix>,v1=<hex HMAC-SHA256 of '<t>.<body>'> verifies with the same secret", () => {
    const t = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secret, body, t);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(header).toBe(`t=${t},v1=${computeSignature(secret, t, body)}`);
    expect(verifySignature(secret, header, body, 300)).toBe(true);
  });

  it("a wrong secret, a changed body or a changed timestamp fails", () => {
    const t = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secret, body, t);
    expect(checkSignature("whsec_wrong_secret_000", header, body)).toEqual({ ok: false, reason: "mismatch" });
    expect(verifySignature(secret, header, body.replace("r1", "r2"), 300)).toBe(false);
    expect(verifySignature(secret, header.replace(`t=${t}`, `t=${t - 1}`), body, 300)).toBe(false);
  });

  it("an old signature is refused beyond the tolerance (replay)", () => {
    const t = Math.floor(Date.now() / 1000) - 600;
    const header = signatureHeader(secret, body, t);
    expect(checkSignature(secret, header, body, 300)).toEqual({ ok: false, reason: "expired" });
    expect(verifySignature(secret, header, body, 900)).toBe(true);
  });

  it("malformed or missing headers fail; one of several v1 values may match (secret rotation)", () => {
    for (const h of [null, undefined, "", "v1=abc", "t=1", `t=abc,v1=${"0".repeat(64)}`, "nonsense"]) expect(verifySignature(secret, h, body, 300)).toBe(false);
    const t = Math.floor(Date.now() / 1000);
    const rotated = `t=${t},v1=${computeSignature("whsec_old_secret_0000", t, body)},v1=${computeSignature(secret, t, body)}`;
    expect(verifySignature(secret, rotated, body, 300)).toBe(true);
  });
});
