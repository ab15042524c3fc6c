import type { WordsFormat } from "./words";

/**
 * How a time of day is written for a person — one format everywhere (issue 20, item 5: one card mixed "17:01 UTC",
 * "05:01 PM" and "05:01:53 PM"): hour and minute, in the reader's time zone on a page. The API has no reader, so its
 * words carry UTC, marked "UTC"; a page rewrites those into the reader's zone with `inReaderZone` before showing them.
 */
const OPTIONS: Intl.DateTimeFormatOptions = { hour: "2-digit", minute: "2-digit" };

/** The clock of one reader: their locale and zone (a page), or a given zone (tests; a server that knows the reader's). */
export function clockFormat(timeZone?: string, locale?: string): WordsFormat {
  const format = new Intl.DateTimeFormat(locale, timeZone ? { ...OPTIONS, timeZone } : OPTIONS);
  return { time: (ms) => format.format(ms) };
}

/** The reader's own clock (on a page: the browser's locale and zone). */
export const readerClock: WordsFormat = clockFormat();

const UTC_TIME = /\b([01]\d|2[0-3]):([0-5]\d) UTC\b/g;
const DAY = 86_400_000;

/**
 * Server-written words ("a person decides by 17:01 UTC") in the reader's clock ("a person decides by 18:01"). The words
 * name only the time of day; the instant meant is the one nearest to `reference` (the Stop, or now) — the deadlines and
 * reconciliation windows they name lie within hours of it. Text without a UTC time is returned as it is.
 */
export function inReaderZone(text: string, reference: number, f: WordsFormat = readerClock): string {
  return text.replace(UTC_TIME, (_, h: string, m: string) => {
    const ref = new Date(reference);
    const sameDay = Date.UTC(ref.getUTCFullYear(), ref.getUTCMonth(), ref.getUTCDate(), Number(h), Number(m));
    const nearest = [sameDay - DAY, sameDay, sameDay + DAY].reduce((a, b) => (Math.abs(b - reference) < Math.abs(a - reference) ? b : a));
    return f.time(nearest);
  });
}
