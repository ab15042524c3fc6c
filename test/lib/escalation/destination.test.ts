import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { checkDestination, forbiddenAddressReason, isAllowListed, type Resolver } from "../../../lib/escalation/destination";

/** DNS as the table says (no network): names not listed do not resolve. */
const dns: Record<string, string[]> = {
  localhost: ["127.0.0.1", "::1"],
  "hooks.example.com": ["93.184.216.34"],
  "internal.example": ["192.168.1.20"],
  "rebind.example": ["93.184.216.34", "10.0.0.1"], // one public answer, one internal: refused
  "metadata.example": ["169.254.169.254"],
  "v6.example": ["2606:4700:4700::1111"],
};
const resolver: Resolver = async (host) => {
  const answers = dns[host];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return answers.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
};
const none = { allowedHosts: [] };

describe("SSRF: where an escalation webhook may go (issue 11, item 1)", () => {
  it.each([
    // the issue's own list
    ["http://127.0.0.1:8080/orders/cancel", /loopback/],
    ["http://localhost:8080/", /localhost resolves to 127\.0\.0\.1: .*loopback/],
    ["http://[::1]:8080/", /loopback/],
    ["http://0.0.0.0:8080/", /unspecified/],
    ["http://2130706433:8080/", /127\.0\.0\.1 is a loopback/],
    ["http://127.1:8080/", /127\.0\.0\.1 is a loopback/],
    // other spellings and ranges
    ["http://0x7f.0.0.1/", /loopback/],
    ["http://017700000001/", /loopback/],
    ["http://127.255.255.254/", /loopback/],
    ["http://169.254.169.254/latest/meta-data/", /link-local .*metadata/],
    ["http://metadata.example/", /metadata/],
    ["http://[fd00:ec2::254]/", /unique-local/],
    ["http://[::ffff:127.0.0.1]/", /carries 127\.0\.0\.1/],
    ["http://[::ffff:a9fe:a9fe]/", /carries 169\.254\.169\.254/],
    ["http://[64:ff9b::a9fe:a9fe]/", /carries 169\.254\.169\.254/],
    ["http://[2002:7f00:1::]/", /carries 127\.0\.0\.1/],
    ["http://[::]/", /unspecified/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[ff02::1]/", /reserved, multicast/],
    ["http://10.1.2.3/", /private/],
    ["http://172.16.0.1/", /private/],
    ["http://172.31.255.255/", /private/],
    ["http://192.168.1.1/", /private/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["http://100.100.100.200/", /carrier-grade NAT/],
    ["http://224.0.0.1/", /multicast/],
    ["http://255.255.255.255/", /reserved/],
    ["http://192.0.2.10/", /documentation/],
    ["http://internal.example/hook", /internal\.example resolves to 192\.168\.1\.20: .*private/],
    ["http://rebind.example/hook", /rebind\.example resolves to 10\.0\.0\.1/],
    ["http://user:pass@hooks.example.com/", /credentials/],
    ["ftp://hooks.example.com/", /scheme/],
    ["http://no-such-host.example/", /does not resolve/],
  ])("refused: %s", async (url, reason) => {
    const check = await checkDestination(url, none, resolver);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it.each([
    ["https://hooks.example.com/stopline", ["93.184.216.34"]],
    ["http://93.184.216.34:8080/x", ["93.184.216.34"]],
    ["https://v6.example/", ["2606:4700:4700::1111"]],
    ["http://[2606:4700:4700::1111]/", ["2606:4700:4700::1111"]],
    ["http://172.32.0.1/", ["172.32.0.1"]], // just outside 172.16/12
    ["http://100.128.0.1/", ["100.128.0.1"]], // just outside 100.64/10
  ])("allowed: %s", async (url, addresses) => {
    expect(await checkDestination(url, none, resolver)).toEqual({ ok: true, allowListed: false, addresses });
  });

  it("an administrator's allow-list (STOPLINE_ESCALATION_ALLOWED_HOSTS) admits exactly the hosts (and ports) it names", async () => {
    const policy = { allowedHosts: ["127.0.0.1:9000", "alerts.internal", "[::1]:9100"] };
    expect(await checkDestination("http://127.0.0.1:9000/hook", policy, resolver)).toMatchObject({ ok: true, allowListed: true });
    expect((await checkDestination("http://127.0.0.1:9001/hook", policy, resolver)).ok).toBe(false);
    expect((await checkDestination("http://localhost:9000/hook", policy, resolver)).ok).toBe(false); // another name for it is not listed
    expect(isAllowListed(new URL("http://ALERTS.internal:1234/"), policy)).toBe(true);
    expect(isAllowListed(new URL("http://[::1]:9100/"), policy)).toBe(true);
    expect(isAllowListed(new URL("http://[::1]:9101/"), policy)).toBe(false);
    // Credentials stay refused even for an allowed host.
    expect((await checkDestination("http://a:b@127.0.0.1:9000/", policy, resolver)).ok).toBe(false);
  });

  it("at creation an unresolvable name is accepted (every delivery checks again); an internal answer never is", async () => {
    expect((await checkDestination("http://no-such-host.example/", none, resolver, true)).ok).toBe(true);
    expect((await checkDestination("http://internal.example/", none, resolver, true)).ok).toBe(false);
  });

  it("classifies addresses: public unicast passes, every special range is named", () => {
    expect(forbiddenAddressReason("8.8.8.8")).toBeNull();
    expect(forbiddenAddressReason("2001:4860:4860::8888")).toBeNull();
    expect(forbiddenAddressReason("::ffff:8.8.8.8")).toBeNull();
    expect(forbiddenAddressReason("fd12:3456::1")).toMatch(/unique-local/);
    expect(forbiddenAddressReason("not-an-ip")).toMatch(/not an IP/);
  });
});
