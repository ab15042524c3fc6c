/**
 * Interposes on the global fetch (which lib/demo/tools.ts uses) for two things a fault scenario needs.
 *
 * `injectFaults`: gives matching calls the demo services' per-call fault header (`X-Demo-Faults`), so ONE
 * request can be slow or lose its answer while the service answers every other call (the lookups that
 * reconciliation makes) at once — the service-wide setting slows both alike.
 *
 * `hold`: holds the answer of one matching HTTP call (made with the global fetch, as lib/demo/tools.ts does) after
 * it has fully ARRIVED, until the test releases it. This makes a cancellation boundary reachable on purpose:
 * "the service answered, and Stop lands before the tool takes its next step" (e.g. the draft exists, the
 * checkpoint before sending has not run yet) — a window that is otherwise a few microseconds wide.
 *
 * The body is read completely before holding, so the call is over as far as the network is concerned: an
 * abort during the hold does not undo it (exactly as when Stop lands right after `await res.text()`).
 */
export interface HeldResponse {
  /** Resolves when the matching call's answer has arrived (and is being held). */
  arrived: Promise<{ url: string; status: number; body: string }>;
  release(): void;
}

export interface CallMatch {
  method?: string;
  url: RegExp;
}

export interface ResponseGate {
  hold(match: CallMatch): HeldResponse;
  /** Every later matching call carries these demo faults in its X-Demo-Faults header. */
  injectFaults(match: CallMatch, faults: Record<string, unknown>): void;
  /** Releases everything still held and restores the global fetch. */
  uninstall(): void;
}

export function installResponseGate(): ResponseGate {
  const realFetch = globalThis.fetch;
  const pending: {
    method?: string;
    url: RegExp;
    resolveArrived: (v: { url: string; status: number; body: string }) => void;
    released: Promise<void>;
    release: () => void;
  }[] = [];

  const injections: { match: CallMatch; faults: Record<string, unknown> }[] = [];
  const matches = (m: CallMatch, url: string, method: string) => m.url.test(url) && (!m.method || m.method.toUpperCase() === method);

  const gated: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.toString() : input.url;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const injected = injections.filter((i) => matches(i.match, url, method));
    if (injected.length) {
      const headers = new Headers(init?.headers);
      headers.set("x-demo-faults", JSON.stringify(Object.assign({}, ...injected.map((i) => i.faults))));
      init = { ...init, headers };
    }
    const index = pending.findIndex((p) => matches(p, url, method));
    if (index < 0) return realFetch(input, init);
    const [hold] = pending.splice(index, 1);
    const res = await realFetch(input, init);
    const body = await res.text();
    hold.resolveArrived({ url, status: res.status, body });
    await hold.released;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  globalThis.fetch = gated;

  const releases: (() => void)[] = [];
  return {
    hold(match) {
      let resolveArrived!: (v: { url: string; status: number; body: string }) => void;
      const arrived = new Promise<{ url: string; status: number; body: string }>((r) => (resolveArrived = r));
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      pending.push({ ...match, resolveArrived, released, release });
      releases.push(release);
      return { arrived, release };
    },
    injectFaults(match, faults) {
      injections.push({ match, faults });
    },
    uninstall() {
      for (const r of releases) r();
      pending.length = 0;
      injections.length = 0;
      if (globalThis.fetch === gated) globalThis.fetch = realFetch;
    },
  };
}
