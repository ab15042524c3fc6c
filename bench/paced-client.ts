import net from "node:net";

/**
 * An open-loop HTTP client for one fixed rate, as light as autocannon (which has no open loop: its rate limit sends
 * each second's quota at once): request i goes out at from + i / rate s whatever the earlier ones are doing, on a
 * keep-alive connection that is free then (a new one when none is), and its latency runs from that scheduled time to
 * the end of its answer — a server that falls behind is charged for the wait of the requests that could not go out
 * yet (no coordinated omission, as wrk2 measures). Requests are written as bytes and answers read only for their
 * status and length: node:http cost the bench ~0.25 ms of CPU per request on the machine it measures (autocannon 0.08).
 */
export interface PacedRequest {
  method: "POST";
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface PacedFigures {
  latencies: number[];
  /** Per answer (in the order of `latencies`): when its request was due, in ms from the first. */
  dueAt: number[];
  /** Milliseconds from the first scheduled request to the last answer. */
  ms: number;
  failures: string[];
}

export async function pacedRequests(
  target: { host: string; port: number },
  requests: PacedRequest[],
  rate: number,
  onAllAnswered?: () => void,
): Promise<PacedFigures> {
  const free: Connection[] = [];
  const all: Connection[] = [];
  const latencies: number[] = [];
  const dueAt: number[] = [];
  const failures: string[] = [];
  const from = performance.now();
  let lastAnswer = from;
  let answered = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const settle = (failure?: string) => {
    if (failure) failures.push(failure);
    if (++answered === requests.length) {
      onAllAnswered?.();
      done();
    }
  };
  for (const [i, request] of requests.entries()) {
    const scheduled = from + (i * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 0.5) await new Promise((r) => setTimeout(r, wait));
    let connection = free.pop();
    if (!connection) all.push((connection = new Connection(target)));
    const bytes = Buffer.from(
      `${request.method} ${request.path} HTTP/1.1\r\nhost: ${target.host}:${target.port}\r\n${Object.entries(request.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}content-length: ${Buffer.byteLength(request.body)}\r\n\r\n${request.body}`,
    );
    const used = connection;
    used.send(bytes, (status, error) => {
      lastAnswer = performance.now();
      latencies.push(lastAnswer - scheduled);
      dueAt.push(scheduled - from);
      if (error || status === null) settle(`${request.path}: ${error?.message ?? "no answer"}`);
      else settle(status >= 300 ? `${request.path} → ${status}` : undefined);
      if (!error) free.push(used);
    });
  }
  if (requests.length) await finished;
  for (const c of all) c.close();
  return { latencies, dueAt, ms: lastAnswer - from, failures };
}

/** One keep-alive connection carrying one request at a time; it reads an answer's status line and its length only. */
class Connection {
  readonly #socket: net.Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #answer: ((status: number | null, error?: Error) => void) | null = null;

  constructor(target: { host: string; port: number }) {
    this.#socket = net.connect(target);
    this.#socket.setNoDelay(true);
    this.#socket.on("data", (chunk) => this.#read(chunk));
    this.#socket.on("error", (error) => this.#fail(error));
    this.#socket.on("close", () => this.#fail(new Error("connection closed")));
  }

  send(bytes: Buffer, answer: (status: number | null, error?: Error) => void) {
    this.#answer = answer;
    this.#socket.write(bytes);
  }

  close() {
    this.#socket.destroy();
  }

  #fail(error: Error) {
    const answer = this.#answer;
    this.#answer = null;
    answer?.(null, error);
  }

  #read(chunk: Buffer) {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    const headEnd = this.#buffer.indexOf("\r\n\r\n");
    if (headEnd < 0) return;
    const head = this.#buffer.subarray(0, headEnd).toString("latin1");
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let end: number;
    if (length) end = headEnd + 4 + Number(length[1]);
    else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const last = this.#buffer.indexOf("\r\n0\r\n\r\n", headEnd);
      end = last < 0 ? Infinity : last + 7;
    } else end = headEnd + 4;
    if (this.#buffer.length < end) return;
    this.#buffer = this.#buffer.subarray(end);
    const answer = this.#answer;
    this.#answer = null;
    answer?.(status);
  }
}
