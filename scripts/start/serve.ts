/**
 * The Stopline HTTP server — what `npm start` (scripts/start.ts) runs as its child, instead of `next start`:
 *
 *   node --import tsx scripts/start/serve.ts        (env: PORT, HOST, STOPLINE_TRUSTED_PROXIES; --dev)
 *
 * Next.js serves the app in this process (its custom-server API); this file adds what `next start` cannot:
 *
 * - It binds to HOST, default 127.0.0.1 — only this machine reaches a default start (issue 11, safe defaults).
 * - Forwarding headers are rewritten before the app sees them (lib/http/client-address.ts): X-Forwarded-For is
 *   the peer's address unless the peer is a trusted proxy (STOPLINE_TRUSTED_PROXIES).
 * - It ends with its parent (issue 11, item 9): `npm start` keeps this process's stdin open as a pipe (and sets
 *   STOPLINE_PARENT_PIPE=1); when that parent dies — even by `kill -9` — the pipe closes and this server stops,
 *   releasing the port. Nothing that `npm start` started can outlive it.
 * - Event streams (GET /api/events, GET /api/tasks/{id}/events) are served on their own lane, written straight
 *   to the socket (lib/events/direct-lane.ts), and the rest of the API goes straight to its route handlers
 *   (api-lane.ts, app/api/routes.ts) — with the same checks and headers as through Next.js, at a fraction of
 *   the cost; pages go to Next.js.
 * - It writes data/server-<port>.json (pid, start time, directory) while it serves, so a later start that finds
 *   the port taken can say whether it is a Stopline server of its own (scripts/start/stale-server.ts).
 */
import { writeFileSync, mkdirSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import next from "next";
import { PROJECT_ROOT } from "../../lib/db/config";
import { isEventStreamRequest, serveEventStreamDirectly } from "../../lib/events/direct-lane";
import { answerExpectContinue, serveApiDirectly } from "./api-lane";
import { applyForwarding, parseTrustedProxies } from "../../lib/http/client-address";
import { serverFile } from "./stale-server";
import { stopWhenParentPipeCloses } from "./process-group";
import { startJsonLogs } from "../../lib/observability/log";

await startJsonLogs(); // STOPLINE_LOG_FORMAT=json: every line of this process is JSON from the first (lib/observability/log.ts)
const dev = process.argv.includes("--dev");
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || "127.0.0.1";
const log = (line: string) => console.log(`[stopline] ${line}`);

let proxies;
try {
  proxies = parseTrustedProxies(process.env.STOPLINE_TRUSTED_PROXIES);
} catch (error) {
  console.error(`[stopline] ${(error as Error).message}`);
  process.exit(2);
}

const app = next({ dev, dir: PROJECT_ROOT, hostname: host, port, ...(dev ? { turbopack: true } : {}) });
const handle = app.getRequestHandler();
await app.prepare();

// STOPLINE_LANES=0: everything through Next.js (to compare, or to rule the lanes out).
const lanes = process.env.STOPLINE_LANES !== "0";
const onRequest = (req: IncomingMessage, res: ServerResponse) => {
  applyForwarding(req.socket.remoteAddress, req.headers, proxies);
  // Event streams on their own lane: one write per frame on the socket (lib/events/direct-lane.ts); the rest of
  // the API straight to its route handlers (api-lane.ts); pages (and anything the lane leaves) to Next.js.
  if (lanes && isEventStreamRequest(req)) void serveEventStreamDirectly(req, res);
  else if (!lanes) void handle(req, res);
  else
    void serveApiDirectly(req, res).then((served) => {
      if (!served) return handle(req, res);
    });
};
const server = createServer(onRequest);
// A body announced past the API's limit is refused before it is sent (413); any other is told to go on.
server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
  if (lanes && answerExpectContinue(req, res)) return;
  res.writeContinue();
  onRequest(req, res);
});
if (dev) {
  const upgrade = app.getUpgradeHandler();
  server.on("upgrade", (req, socket, head) => void upgrade(req, socket, head));
}

const file = serverFile(PROJECT_ROOT, port);
server.once("error", (error: NodeJS.ErrnoException) => {
  // scripts/start.ts checks the port before it starts this process; this covers a race with another program.
  console.error(`[stopline] cannot listen on ${host}:${port}: ${error.code === "EADDRINUSE" ? "the port is in use" : error.message}`);
  process.exit(error.code === "EADDRINUSE" ? 98 : 1);
});
server.listen(port, host, () => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ pid: process.pid, port, host, root: PROJECT_ROOT, startedAt: new Date().toISOString() }));
  log(
    `serving on http://${host.includes(":") ? `[${host}]` : host}:${port}${proxies.entries.length ? ` (trusting forwarding headers from ${proxies.entries.join(", ")})` : ""}`,
  );
});

let stopping = false;
async function stop(why: string, code = 0) {
  if (stopping) return;
  stopping = true;
  log(`stopping: ${why}`);
  // Whatever happens below, do not outlive the reason to stop by more than a few seconds.
  setTimeout(() => process.exit(code), 5_000).unref();
  rmSync(file, { force: true });
  server.close();
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 1_000).unref(); // event streams never end by themselves
  await app.close().catch(() => {});
  process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void stop(`${signal}`, 0));
process.on("exit", () => rmSync(file, { force: true }));

// Parent death: stdin is a pipe from `npm start` (which sets STOPLINE_PARENT_PIPE=1); end-of-file means the
// parent is gone, however it ended.
if (process.env.STOPLINE_PARENT_PIPE === "1") stopWhenParentPipeCloses((how) => void stop(`the npm start that ran this server is gone (${how})`, 0));
