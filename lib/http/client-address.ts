import { BlockList, isIP } from "node:net";

/**
 * Who is on the other end of a request (issue 11, item 5). `X-Forwarded-For`, `X-Forwarded-Host` and
 * `X-Forwarded-Proto` are whatever the client wrote — unless a proxy we trust wrote them. So the server
 * (scripts/start/serve.ts) rewrites them on every request before the app sees it:
 *
 * - from a peer that is not a trusted proxy, the forwarding headers are dropped and X-Forwarded-For becomes
 *   the peer's own address (rotating the header gets an attacker nothing);
 * - from a trusted proxy (STOPLINE_TRUSTED_PROXIES: comma-separated addresses or CIDR ranges, e.g.
 *   `127.0.0.1,10.0.0.0/8`), X-Forwarded-For is read from the right, skipping trusted proxies: the first
 *   address that is not one is the client. Host and proto are taken as the proxy sent them.
 *
 * Afterwards X-Forwarded-For holds exactly one address — the client's — which is what the sign-in rate limit
 * (lib/auth/sign-in-throttle.ts) and Better Auth key on.
 */
export interface TrustedProxies {
  readonly list: BlockList;
  readonly entries: readonly string[];
}

export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const list = new BlockList();
  const entries: string[] = [];
  for (const raw of (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address, prefix] = raw.split("/");
    const family = isIP(address);
    if (!family) throw new Error(`STOPLINE_TRUSTED_PROXIES: "${raw}" is not an IP address or CIDR range`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else {
      const bits = Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32))
        throw new Error(`STOPLINE_TRUSTED_PROXIES: "${raw}" has an invalid prefix length`);
      list.addSubnet(address, bits, type);
    }
    entries.push(raw);
  }
  return { list, entries };
}

/** "::ffff:127.0.0.1" → "127.0.0.1"; strips brackets and zone ids. */
export function normalizeAddress(address: string | undefined | null): string | null {
  if (!address) return null;
  let a = address.trim().replace(/^\[|\]$/g, "");
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(a)) a = a.slice(7);
  return isIP(a) ? a : null;
}

export function isTrusted(address: string | null, proxies: TrustedProxies): boolean {
  if (!address) return false;
  const family = isIP(address);
  return family !== 0 && proxies.list.check(address, family === 6 ? "ipv6" : "ipv4");
}

const FORWARDING = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded", "x-real-ip"] as const;

/**
 * Rewrites a request's forwarding headers in place (a Node IncomingMessage's `headers` object) and returns
 * the client's address.
 */
export function applyForwarding(
  peerAddress: string | undefined,
  headers: Record<string, string | string[] | undefined>,
  proxies: TrustedProxies,
): string | null {
  const peer = normalizeAddress(peerAddress);
  let client = peer;
  if (isTrusted(peer, proxies)) {
    const chain = [headers["x-forwarded-for"]]
      .flat()
      .filter((v): v is string => typeof v === "string")
      .join(",")
      .split(",")
      .map((s) => normalizeAddress(s))
      .filter((s): s is string => !!s);
    for (let i = chain.length - 1; i >= 0; i--) {
      client = chain[i];
      if (!isTrusted(chain[i], proxies)) break;
    }
    for (const name of ["forwarded", "x-real-ip"] as const) delete headers[name];
  } else {
    for (const name of FORWARDING) delete headers[name];
  }
  if (client) headers["x-forwarded-for"] = client;
  return client;
}

/** The client address a request carries after applyForwarding (in route handlers: the X-Forwarded-For header). */
export function clientAddressOf(headers: Headers): string | null {
  return normalizeAddress(headers.get("x-forwarded-for")?.split(",").at(-1));
}
