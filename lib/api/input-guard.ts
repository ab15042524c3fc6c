import { AppError, ErrorCode } from "../errors";

/**
 * What every request's input must satisfy before any schema or database sees it — the same rules whichever
 * database is behind the API, so that what PostgreSQL would refuse, SQLite refuses too (and neither turns it
 * into a 500, nor silently rewrites it):
 *
 * - no NUL character (U+0000) in any string or key: PostgreSQL's text and jsonb cannot store it (SQLite can,
 *   and would then hand back what PostgreSQL never could);
 * - no unpaired UTF-16 surrogate ("\ud800" alone): it is not Unicode — PostgreSQL's jsonb refuses the escape,
 *   and SQLite's UTF-8 conversion would quietly replace it with U+FFFD;
 * - JSON nested at most {@link MAX_JSON_DEPTH} levels: deeper input is not a real payload, and serialising it
 *   again (to store or to answer) overflows the stack.
 *
 * The walk is iterative (an explicit stack), and so is V8's JSON.parse: a hostile document cannot overflow the
 * stack here, and the body size limit bounds the work.
 */
export const MAX_JSON_DEPTH = 64;
/** Largest request body accepted (bytes); larger is a 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be accepted, or null. */
export function textProblem(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character (U+0000), which is not accepted";
  if (LONE_SURROGATE.test(s)) return "contains an unpaired UTF-16 surrogate (not valid Unicode)";
  return null;
}

const refuse = (field: string, problem: string) => new AppError(ErrorCode.badRequest, `${field}: ${problem}`, { field });

/** Throws a 400 naming the first offending field (a dotted path such as `input.items.0.name`). */
export function assertAcceptableInput(value: unknown, root: string): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === "string") {
      const problem = textProblem(v);
      if (problem) throw refuse(path, problem);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) throw refuse(path, `is nested more than ${MAX_JSON_DEPTH} levels deep`);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}.${i}`, depth: depth + 1 });
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      const keyProblem = textProblem(key);
      if (keyProblem) throw refuse(`${path} (a key)`, keyProblem);
      stack.push({ value: child, path: depth === 0 ? key : `${path}.${key}`, depth: depth + 1 });
    }
  }
}

/**
 * The body's fields are named as the schemas name them (`title`, `input.a`); a top-level problem is `(body)`.
 * Path and query values are checked the same way (`taskId`, `query.status`).
 */
export function assertAcceptableBody(body: unknown): void {
  assertAcceptableInput(body, "(body)");
}
