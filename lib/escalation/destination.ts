import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { AppError, ErrorCode } from "../errors";

/**
 * Where escalation webhooks may go (server-side request forgery, issue 11 item 1). An escalation channel is a
 * URL an operator types in; Stopline then POSTs to it from inside the network it runs in. Without a check, a
 * channel at http://127.0.0.1:<port>/…, a private address or the cloud metadata service turns Stopline into a
 * way to call internal services (it cancelled an order once that way).
 *
 * The rule: a destination must resolve only to public unicast addresses. Refused (IPv4 and IPv6, including
 * IPv4-mapped, NAT64, 6to4 and IPv4-compatible forms of them): unspecified, loopback, private (RFC 1918, IPv6
 * unique-local), carrier-grade NAT, link-local (the metadata services at 169.254.169.254 and fd00:ec2::254
 * included), multicast, broadcast, documentation, benchmarking and reserved ranges.
 *
 * It is checked when a channel is created (400 naming the field) and again at every delivery attempt, on the
 * address the connection is actually made to (the lookup is ours: a DNS answer that changed since — rebinding —
 * is checked too). Redirects are never followed. IP literals in any spelling (`2130706433`, `127.1`, `[::1]`,
 * `0.0.0.0`) are normalised by the URL parser first and checked like any address.
 *
 * An administrator can allow specific hosts by configuration — STOPLINE_ESCALATION_ALLOWED_HOSTS, a
 * comma-separated list of `host` or `host:port` (e.g. `127.0.0.1:9000,alerts.internal`) — for an internal
 * receiver; the tests use it for their local receivers. Nothing else bypasses the rule.
 */

const v4 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (Alibaba's metadata service sits here too)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  v4.addSubnet(net, prefix, "ipv4");

const v6 = new BlockList();
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["2001::", 23], // IETF protocol assignments (Teredo and others)
  ["fc00::", 7], // unique local (AWS's metadata at fd00:ec2::254 included)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const)
  v6.addSubnet(net, prefix, "ipv6");

/** The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, IPv4-compatible), or null. */
function embeddedIPv4(address: string): string | null {
  const groups = expandIPv6(address);
  if (!groups) return null;
  const asV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return asV4(groups[6], groups[7]); // ::ffff:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return asV4(groups[6], groups[7]); // 64:ff9b::/96
  if (groups[0] === 0x2002) return asV4(groups[1], groups[2]); // 6to4
  if (zero(0, 6) && (groups[6] !== 0 || groups[7] > 1)) return asV4(groups[6], groups[7]); // ::a.b.c.d
  return null;
}

function expandIPv6(address: string): number[] | null {
  let a = address
    .replace(/^\[|\]$/g, "")
    .split("%")[0]
    .toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const [p, q, r, s] = dotted[1].split(".").map(Number);
    a = `${a.slice(0, -dotted[1].length)}${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail] = a.includes("::") ? a.split("::") : [a, null];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === null ? [] : Array(8 - h.length - t.length).fill("0");
  const all = [...h, ...fill, ...t];
  if (all.length !== 8) return null;
  return all.map((g) => parseInt(g || "0", 16));
}

/** Why this address may not be a webhook destination, or null for a public unicast address. */
export function forbiddenAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) {
    if (!v4.check(address, "ipv4")) return null;
    if (address.startsWith("127.")) return `${address} is a loopback address`;
    if (address.startsWith("169.254.")) return `${address} is link-local (where cloud metadata services live)`;
    if (/^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(address)) return `${address} is a private address`;
    if (address.startsWith("0.")) return `${address} is not a destination (unspecified / "this network")`;
    if (/^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./.test(address)) return `${address} is a carrier-grade NAT (shared) address`;
    return `${address} is in a reserved, multicast or documentation range`;
  }
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner) {
      const reason = forbiddenAddressReason(inner);
      return reason ? `${address} carries ${inner}: ${reason}` : null;
    }
    if (!v6.check(address, "ipv6")) return null;
    const groups = expandIPv6(address) ?? [];
    if (groups.every((g, i) => g === (i === 7 ? 1 : 0))) return `${address} is the loopback address`;
    if (groups.every((g) => g === 0)) return `${address} is not a destination (unspecified)`;
    if ((groups[0] & 0xfe00) === 0xfc00) return `${address} is a unique-local (private) address`;
    if ((groups[0] & 0xffc0) === 0xfe80) return `${address} is link-local`;
    return `${address} is in a reserved, multicast or documentation range`;
  }
  return `${address} is not an IP address`;
}

export interface DestinationPolicy {
  /** Hosts an administrator allowed explicitly: `host` (any port) or `host:port`, lower case. */
  allowedHosts: readonly string[];
}

export function destinationPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): DestinationPolicy {
  return {
    allowedHosts: (env.STOPLINE_ESCALATION_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  };
}

/** The URL's host as written in an allow-list entry (IPv6 without brackets) and its port. */
function hostAndPort(url: URL): { host: string; port: string } {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return { host, port: url.port || (url.protocol === "https:" ? "443" : "80") };
}

export function isAllowListed(url: URL, policy: DestinationPolicy): boolean {
  const { host, port } = hostAndPort(url);
  return policy.allowedHosts.some((entry) => {
    const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) return bracketed[1] === host && (!bracketed[2] || bracketed[2] === port);
    const colon = entry.lastIndexOf(":");
    // host:port, unless the entry is a bare IPv6 address (several colons)
    if (colon > 0 && entry.indexOf(":") === colon) return entry.slice(0, colon) === host && entry.slice(colon + 1) === port;
    return entry === host;
  });
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

export type DestinationCheck = { ok: true; allowListed: boolean; addresses: string[] } | { ok: false; reason: string };

/**
 * Checks a destination URL: scheme, no credentials, then — unless allow-listed — every address its host
 * resolves to. A host that resolves to several addresses is refused if any of them is forbidden (the
 * connection could go to any).
 */
export async function checkDestination(
  raw: string,
  policy: DestinationPolicy = destinationPolicyFromEnv(),
  resolve: Resolver = systemResolver,
  /** At creation a name that does not resolve (yet, or from here) is accepted: every delivery checks again. */
  acceptUnresolved = false,
): Promise<DestinationCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "it is not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: `the scheme ${url.protocol} is not http or https` };
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not accepted (put a secret in the channel's secret instead)" };
  if (isAllowListed(url, policy)) return { ok: true, allowListed: true, addresses: [] };
  const { host } = hostAndPort(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host)).map((a) => a.address);
    } catch (error) {
      if (acceptUnresolved) return { ok: true, allowListed: false, addresses: [] };
      return { ok: false, reason: `its host ${host} does not resolve (${(error as { code?: string }).code ?? (error as Error).message})` };
    }
    if (!addresses.length)
      return acceptUnresolved ? { ok: true, allowListed: false, addresses: [] } : { ok: false, reason: `its host ${host} does not resolve` };
  }
  for (const address of addresses) {
    const why = forbiddenAddressReason(address);
    if (why) {
      return {
        ok: false,
        reason: `${host === address ? "" : `${host} resolves to ${address}: `}${why}; escalations may only go to public addresses (an administrator can allow an internal host with STOPLINE_ESCALATION_ALLOWED_HOSTS)`,
      };
    }
  }
  return { ok: true, allowListed: false, addresses };
}

/** At channel creation: a 400 naming the field, so the operator learns at once. */
export async function assertAllowedDestination(url: string, field = "url"): Promise<void> {
  const check = await checkDestination(url, destinationPolicyFromEnv(), systemResolver, true);
  if (!check.ok) throw new AppError(ErrorCode.badRequest, `${field}: this destination is not allowed — ${check.reason}`, { field });
}

/** A delivery attempt refused by the destination rule (not retried: the rule, not the network, refused it). */
export class DestinationRefusedError extends Error {
  override readonly name = "DestinationRefusedError";
}

/**
 * POSTs like fetch, but connects only to an allowed destination: the check runs again now, and the socket's
 * own DNS lookup refuses a forbidden answer (a host that re-resolved to an internal address since the check).
 * Never follows redirects. Reads at most 64 KiB of the answer.
 */
export async function guardedPost(
  raw: string,
  init: { headers: Record<string, string>; body: string; signal?: AbortSignal },
  policy: DestinationPolicy = destinationPolicyFromEnv(),
  resolve: Resolver = systemResolver,
): Promise<Response> {
  const check = await checkDestination(raw, policy, resolve);
  if (!check.ok) throw new DestinationRefusedError(`destination refused: ${check.reason}`);
  const url = new URL(raw);
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        if (!check.allowListed) {
          for (const a of answers) {
            const why = forbiddenAddressReason(a.address);
            if (why) return callback(new DestinationRefusedError(`destination refused: ${hostname} now resolves to ${a.address}: ${why}`), "", 4);
          }
        }
        const usable = options.family ? answers.filter((a) => a.family === options.family) : answers;
        if (!usable.length) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), "", 4);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (error) => callback(error, "", 4),
    );
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolvePromise, reject) => {
    const req = send(
      url,
      { method: "POST", headers: { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) }, lookup, signal: init.signal },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < 65_536) chunks.push(c);
          size += c.length;
        });
        res.on("end", () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 205 || status === 304;
          resolvePromise(new Response(empty ? null : Buffer.concat(chunks).subarray(0, 65_536), { status: Math.max(200, Math.min(599, status)), headers }));
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}
