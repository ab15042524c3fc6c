import { describe, expect, it } from "vitest";
import { applyForwarding, clientAddressOf, parseTrustedProxies } from "../../../lib/http/client-address";

const none = parseTrustedProxies(undefined);
const proxies = parseTrustedProxies("127.0.0.1, 10.0.0.0/8, ::1");

describe("forwarding headers are trusted only from configured proxies (issue 11, item 5)", () => {
  it("from an untrusted peer: a client-supplied X-Forwarded-For (rotated per attempt) is replaced by the peer's address; host and proto are dropped", () => {
    for (const spoofed of ["1.1.1.1", "2.2.2.2, 3.3.3.3", "10.0.0.1"]) {
      const headers: Record<string, string | undefined> = {
        "x-forwarded-for": spoofed,
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
        "x-real-ip": "9.9.9.9",
        forwarded: "for=8.8.8.8",
      };
      expect(applyForwarding("::ffff:203.0.113.9", headers, none)).toBe("203.0.113.9");
      expect(headers).toEqual({ "x-forwarded-for": "203.0.113.9" });
    }
  });

  it("from a trusted proxy: the client is the rightmost address that is not a trusted proxy", () => {
    const headers: Record<string, string | undefined> = {
      "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.1.2.3",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "stopline.example.com",
    };
    expect(applyForwarding("127.0.0.1", headers, proxies)).toBe("198.51.100.7"); // 6.6.6.6 was written by the client itself
    expect(headers).toEqual({ "x-forwarded-for": "198.51.100.7", "x-forwarded-proto": "https", "x-forwarded-host": "stopline.example.com" });
  });

  it("a trusted proxy without X-Forwarded-For is itself the client; the same peer untrusted is too", () => {
    expect(applyForwarding("::1", {}, proxies)).toBe("::1");
    expect(applyForwarding("127.0.0.1", { "x-forwarded-for": "5.5.5.5" }, none)).toBe("127.0.0.1");
  });

  it("configuration errors are loud", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/prefix/);
    expect(() => parseTrustedProxies("proxy.internal")).toThrow(/not an IP address/);
  });

  it("route handlers read the one address the server left", () => {
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "198.51.100.7" }))).toBe("198.51.100.7");
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "1.1.1.1, 198.51.100.7" }))).toBe("198.51.100.7");
    expect(clientAddressOf(new Headers())).toBeNull();
  });
});
