/**
 * Reads of the same shape by concurrent requests, answered by one statement. On the machines Stopline is measured on,
 * a statement's round trip (the driver's write, PostgreSQL waking up, the answer parsed) costs more CPU than most of
 * the reads themselves (issue 22 §5: a quarter of the app's time in part D was `writev`). While one statement is in
 * flight, the keys asked for meanwhile wait and go out together as the next one; an idle coalescer sends a lone key on
 * the next turn of the event loop, so nothing waits for a batch to fill.
 *
 * Freshness: every answer comes from a statement sent after its key was asked for — a batch never answers a key with
 * a row read before the request arrived (a token revoked before the request is refused, as without coalescing).
 */
export class Coalescer<K, V> {
  readonly #read: (keys: K[]) => Promise<Map<K, V>>;
  readonly #maxInFlight: number;
  readonly #maxBatch: number;
  #pending = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  #inFlight = 0;
  #scheduled = false;

  /**
   * `read` answers a batch of distinct keys (a key missing from its map reads as undefined); a batch that fails fails
   * every key in it, as each read would have alone.
   */
  constructor(read: (keys: K[]) => Promise<Map<K, V>>, options: { maxInFlight?: number; maxBatch?: number } = {}) {
    this.#read = read;
    this.#maxInFlight = options.maxInFlight ?? 1;
    this.#maxBatch = options.maxBatch ?? 64;
  }

  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#pending.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || !this.#pending.size) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#send();
    });
  }

  async #send() {
    const batch = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
    for (const [key, waiting] of this.#pending) {
      if (batch.size >= this.#maxBatch) break;
      batch.set(key, waiting);
      this.#pending.delete(key);
    }
    if (!batch.size) return;
    this.#inFlight++;
    this.#schedule(); // the rest, if the batch was full
    try {
      const answers = await this.#read([...batch.keys()]);
      for (const [key, waiting] of batch) for (const w of waiting) w.resolve(answers.get(key));
    } catch (error) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(error);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}

/** One coalescer per owner (a database's pool), made on first use: `coalescerPerOwner(make)(pool)`. */
export function coalescerPerOwner<O extends object, K, V>(make: (owner: O) => Coalescer<K, V>): (owner: O) => Coalescer<K, V> {
  const made = new WeakMap<O, Coalescer<K, V>>();
  return (owner) => {
    let coalescer = made.get(owner);
    if (!coalescer) made.set(owner, (coalescer = make(owner)));
    return coalescer;
  };
}

/**
 * Answers a batch whose requests may name the same task more than once: each task at most once per statement (`send`
 * gets distinct tasks, in task id order — the order every shared statement locks tasks in), the rest in successive
 * statements, so a second request of a task finds what the first one wrote.
 */
export async function oncePerStatement<R extends { taskId: string }, A>(requests: R[], send: (once: R[]) => Promise<A[]>): Promise<Map<R, A>> {
  const answers = new Map<R, A>();
  for (let left = [...requests].sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0)); left.length; ) {
    const seen = new Set<string>();
    const once = left.filter((r) => !seen.has(r.taskId) && !!seen.add(r.taskId));
    left = left.filter((r) => !once.includes(r));
    const answered = await send(once);
    for (const [i, r] of once.entries()) answers.set(r, answered[i]);
  }
  return answers;
}
