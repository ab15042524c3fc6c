import { z } from "zod";

// The API's small building blocks (not part of its public schemas): ids, dates, bounded text, versions.

export const id = z.string().min(1).max(200);
export const isoDate = z.iso.datetime({ offset: true });
export const json = z.unknown();

/** Required text up to `max` characters; a longer one is refused with the limit named (never cut). */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max, { message: `at most ${max.toLocaleString("en")} characters` });
/**
 * A version number as both databases store it (a 32-bit integer): PostgreSQL refuses a larger one, so SQLite
 * must not take it either (issue 11: the two databases accept the same inputs).
 */
export const version = (min: number) => z.number().int().min(min).max(2_147_483_647);

export const leaseToken = text(200);
