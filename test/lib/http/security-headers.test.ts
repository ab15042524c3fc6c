import { describe, expect, it } from "vitest";
import {
  API_CONTENT_SECURITY_POLICY,
  commonSecurityHeaders,
  malformedPathSegment,
  newNonce,
  pageContentSecurityPolicy,
} from "../../../lib/http/security-headers";

describe("security headers (issue 11, item 6)", () => {
  it("pages: scripts only with this request's nonce (no 'unsafe-inline' for scripts), no framing, no plugins, no foreign forms", () => {
    const policy = pageContentSecurityPolicy({ nonce: "abc123==" });
    const directives = Object.fromEntries(policy.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect(directives["script-src"]).toBe("'self' 'nonce-abc123==' 'strict-dynamic'");
    expect(directives["frame-ancestors"]).toBe("'none'");
    expect(directives["object-src"]).toBe("'none'");
    expect(directives["base-uri"]).toBe("'self'");
    expect(directives["form-action"]).toBe("'self'");
    expect(policy).not.toMatch(/unsafe-eval/);
    expect(policy).not.toMatch(/upgrade-insecure-requests/);
    expect(pageContentSecurityPolicy({ nonce: "n", dev: true })).toMatch(/'unsafe-eval'/);
    expect(pageContentSecurityPolicy({ nonce: "n", https: true })).toMatch(/upgrade-insecure-requests$/);
  });

  it("a fresh nonce each time, of 128 bits", () => {
    const a = newNonce();
    expect(a).not.toBe(newNonce());
    expect(Buffer.from(a, "base64")).toHaveLength(16);
  });

  it("API responses allow nothing; every response is nosniff, unframeable, with a referrer policy; HSTS only over HTTPS", () => {
    expect(API_CONTENT_SECURITY_POLICY).toMatch(/^default-src 'none'; frame-ancestors 'none'/);
    expect(commonSecurityHeaders(false)).toMatchObject({
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
    expect(commonSecurityHeaders(false)).not.toHaveProperty("Strict-Transport-Security");
    expect(commonSecurityHeaders(true)["Strict-Transport-Security"]).toMatch(/^max-age=31536000/);
  });

  it("a path id such as %C0%AE (overlong UTF-8) is found before routing; valid encodings pass", () => {
    expect(malformedPathSegment("/api/tasks/%C0%AE")).toBe("%C0%AE");
    expect(malformedPathSegment("/api/tasks/%ED%A0%80/cancel")).toBe("%ED%A0%80"); // an encoded lone surrogate
    expect(malformedPathSegment("/api/tasks/%E2%82%AC")).toBeNull();
    expect(malformedPathSegment("/console/tasks/3f2a")).toBeNull();
  });
});
