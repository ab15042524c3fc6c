import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Webhook signatures, Stripe-style: `Stopline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the
 * HMAC is computed with the channel's shared secret over `"<t>.<raw body>"`. The timestamp is signed too, so
 * a captured request cannot be replayed later than the receiver's tolerance.
 *
 * Receivers: verify against the RAW body bytes you received (not a re-serialised object), reject anything
 * older than a few minutes, and de-duplicate by `Stopline-Delivery-Id` — a delivery can arrive more than
 * once (an attempt whose answer was lost is retried).
 */

export function computeSignature(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

/** The header value for `body`, signed at `timestamp` (unix seconds; now by default). */
export function signatureHeader(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}

export interface SignatureCheck {
  ok: boolean;
  /** Why it failed (for the receiver's log; do not echo it to the caller). */
  reason?: "malformed" | "expired" | "mismatch";
}

/**
 * Checks a `Stopline-Signature` header: well-formed, timestamp within `toleranceSeconds` of `now` (either
 * direction: clocks drift), and one of its `v1` values equal — compared in constant time — to the HMAC of
 * `"<t>.<body>"` with `secret`. Several `v1=` values are accepted (a sender rotating secrets may send two).
 */
export function checkSignature(secret: string, header: string | null | undefined, body: string, toleranceSeconds = 300, now = Date.now()): SignatureCheck {
  if (!header || !secret) return { ok: false, reason: "malformed" };
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) candidates.push(value.toLowerCase());
  }
  if (timestamp === null || !candidates.length) return { ok: false, reason: "malformed" };
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: "expired" };
  const expected = Buffer.from(computeSignature(secret, timestamp, body), "hex");
  const match = candidates.some((c) => {
    const given = Buffer.from(c, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? { ok: true } : { ok: false, reason: "mismatch" };
}

/** `checkSignature(...).ok`: true only for a well-formed, fresh header whose HMAC matches. */
export function verifySignature(secret: string, header: string | null | undefined, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  return checkSignature(secret, header, body, toleranceSeconds, now).ok;
}
