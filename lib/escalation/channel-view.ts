import { ChannelKind } from "./states";

/**
 * What the API shows of a channel. Never the secret (only whether one is set), and never a full Slack
 * URL: an incoming-webhook URL is itself a credential, so its secret path is shortened; a webhook URL
 * loses its query string (which may carry a token).
 */
export interface ChannelRow {
  id: string;
  name: string;
  kind: string;
  url: string;
  secret: string | null;
  active: boolean;
  createdAt: Date;
}

export function channelView(c: ChannelRow) {
  return { id: c.id, name: c.name, kind: c.kind, urlPreview: urlPreview(c.kind, c.url), hasSecret: !!c.secret, active: c.active, createdAt: c.createdAt };
}

export function urlPreview(kind: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "(invalid URL)";
  }
  const query = u.search ? "?…" : "";
  if (kind !== ChannelKind.slack) return `${u.origin}${u.pathname}${query}`;
  const parts = u.pathname.split("/").filter(Boolean);
  const last = parts.at(-1) ?? "";
  const shown = parts.length > 1 ? `/${parts[0]}/…${last.slice(-4)}` : parts.length ? `/…${last.slice(-4)}` : "";
  return `${u.origin}${shown}${query}`;
}
