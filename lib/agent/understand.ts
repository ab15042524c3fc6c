/**
 * The deterministic demo agent's understanding of a request: a handful of phrasings over the demo
 * services, no model. Unknown requests are answered honestly ("I can …").
 */
export type Intent =
  | { type: "order"; items: { sku: string; quantity: number }[] }
  | { type: "export"; rows: number }
  | { type: "record_and_email"; name: string; email: string }
  /** A question about what an earlier request did ("did my order go through?"): answered from the history. */
  | { type: "question"; about: "order" | "export" | "record" | "email" | null }
  | { type: "unknown" };

const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  twenty: 20,
};
const SKUS: Record<string, string> = { chair: "chair", chairs: "chair", desk: "desk", desks: "desk", lamp: "lamp", lamps: "lamp", mug: "mug", mugs: "mug" };

export function understand(text: string): Intent {
  const t = text.toLowerCase().trim();
  // A question about an earlier request is not a new one: "did the export finish?" exports nothing.
  if (/^(did|was|were|has|have|is|are|what happened|what became)\b/.test(t) || /\b(go|gone|went) through\b/.test(t) || /\bstatus\b/.test(t)) {
    const about = /\border/.test(t)
      ? "order"
      : /\b(export|report)/.test(t)
        ? "export"
        : /\b(e-?mail|mail)/.test(t)
          ? "email"
          : /\b(record|customer|crm)\b/.test(t)
            ? "record"
            : null;
    return { type: "question", about };
  }
  const email = /([\w.+-]+@[\w-]+(\.[\w-]+)+)/.exec(text)?.[1];
  if (email && /\b(record|customer|contact|add|save)\b/.test(t)) {
    const name = /(?:customer|contact|record)\s+(?:named\s+)?([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)/.exec(text)?.[1] ?? email.split("@")[0];
    return { type: "record_and_email", name, email };
  }
  const exportMatch = /\b(export|report)\b/.test(t);
  if (exportMatch) {
    const rows = Number(/(\d[\d,]*)\s*rows?/.exec(t)?.[1]?.replace(/,/g, "") ?? 200);
    return { type: "export", rows: Math.min(Math.max(rows, 1), 100_000) };
  }
  if (/\b(order|buy|get|purchase)\b/.test(t)) {
    const items = new Map<string, number>();
    for (const m of t.matchAll(/\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)\s+(?:\w+\s+)?(chairs?|desks?|lamps?|mugs?)\b/g)) {
      const quantity = /^\d+$/.test(m[1]) ? Number(m[1]) : NUMBERS[m[1]];
      const sku = SKUS[m[2]];
      items.set(sku, (items.get(sku) ?? 0) + quantity);
    }
    if (items.size) return { type: "order", items: [...items].map(([sku, quantity]) => ({ sku, quantity })) };
  }
  return { type: "unknown" };
}
