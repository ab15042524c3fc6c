import { ChannelKind, EscalationEvent, EscalationTrigger } from "./states";

export { EscalationTrigger };

/**
 * What an escalation says, built from the ledger when it is enqueued, and the two wire formats: the webhook
 * body (these facts as JSON, signed) and a Slack-compatible incoming-webhook message ({ text, blocks }).
 * The stored delivery payload is exactly the body that is sent.
 */

export interface EscalationFacts {
  event: EscalationEvent;
  trigger: EscalationTrigger;
  reviewItem: { id: string; kind: string; subject: string; deadline: string; status: string };
  task: { id: string; title: string };
  escalatedAt: string;
  reason: string | null;
  /** Close-outs only: when and how the item was decided. */
  closedOut?: { at: string; status: string; decidedBy: string | null; resolution: string | null };
  links: { reviewItem: string; task: string; api: string };
  /**
   * Set when this channel was added after the item escalated and received it then, because the item was still
   * waiting for a decision: when the channel was added.
   */
  late?: { channelAddedAt: string };
}

/** The console's base URL for links in messages (STOPLINE_PUBLIC_URL, else this server on PORT). */
export const publicUrl = () => (process.env.STOPLINE_PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");

export function linksFor(base: string, reviewItemId: string, taskId: string): EscalationFacts["links"] {
  const b = base.replace(/\/+$/, "");
  return {
    reviewItem: `${b}/console/review?item=${encodeURIComponent(reviewItemId)}`,
    task: `${b}/console/tasks/${encodeURIComponent(taskId)}`,
    api: `${b}/api/review-items?taskId=${encodeURIComponent(taskId)}`,
  };
}

/** The body sent to a channel of this kind. */
export function renderPayload(kind: string, facts: EscalationFacts): Record<string, unknown> {
  return kind === ChannelKind.slack ? slackMessage(facts) : webhookBody(facts);
}

export function webhookBody(facts: EscalationFacts): Record<string, unknown> {
  return { ...facts };
}

const KIND_LABEL: Record<string, string> = {
  approve_compensation: "Compensation awaiting approval",
  resolve_uncertain: "Uncertain outcome",
  orphaned_resource: "Orphaned resource",
  orphaned_side_effect: "Irreversible side effect",
};
const TRIGGER_LABEL: Record<EscalationTrigger, string> = {
  deadline_passed: "review deadline passed without a decision",
  high_risk_orphan: "high-risk orphan: needs a person now",
  escalated: "escalated",
};

/** Slack mrkdwn: &, < and > are control characters. */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** A date Slack shows in the reader's time zone, with the ISO time as the fallback. */
const slackDate = (iso: string) => `<!date^${Math.floor(Date.parse(iso) / 1000)}^{date_short_pretty} {time}|${iso}>`;

/** A Slack incoming-webhook message ({ text, blocks }); `text` alone carries everything, for receivers that ignore blocks. */
export function slackMessage(f: EscalationFacts): { text: string; blocks: unknown[] } {
  const label = KIND_LABEL[f.reviewItem.kind] ?? f.reviewItem.kind;
  const subject = esc(cut(f.reviewItem.subject, 1500));
  const task = `<${f.links.task}|${esc(cut(f.task.title, 200))}>`;
  if (f.event === EscalationEvent.closedOut && f.closedOut) {
    const c = f.closedOut;
    const who = c.decidedBy ? ` by ${esc(c.decidedBy)}` : "";
    const why = c.resolution ? `: ${esc(cut(c.resolution, 1000))}` : "";
    const text = `:white_check_mark: Closed out — ${label}: ${subject} (task ${task}) was ${esc(c.status)}${who}${why}`;
    return {
      text,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: `:white_check_mark: *Closed out — ${esc(label)}*\n${subject}` } },
        {
          type: "section",
          fields: [
            { type: "mrkdwn", text: `*Task*\n${task}` },
            { type: "mrkdwn", text: `*Decision*\n${esc(c.status)}${who}` },
            { type: "mrkdwn", text: `*Closed*\n${slackDate(c.at)}` },
            { type: "mrkdwn", text: `*Escalated*\n${slackDate(f.escalatedAt)}` },
          ],
        },
        ...(c.resolution ? [{ type: "section", text: { type: "mrkdwn", text: `*Resolution*\n${esc(cut(c.resolution, 2000))}` } }] : []),
        { type: "context", elements: [{ type: "mrkdwn", text: `Review item ${esc(f.reviewItem.id)} · <${f.links.reviewItem}|open in Stopline>` }] },
      ],
    };
  }
  const reason = f.reason ? esc(cut(f.reason, 1000)) : TRIGGER_LABEL[f.trigger];
  const late = f.late ? " (sent late: this channel was added after the escalation, and the item is still open)" : "";
  const text = `:rotating_light: Escalated${late} — ${label}: ${subject} (task ${task}; ${TRIGGER_LABEL[f.trigger]}). <${f.links.reviewItem}|Decide in Stopline>`;
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `:rotating_light: *Escalated${late} — ${esc(label)}*\n${subject}` } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: `*Task*\n${task}` },
          { type: "mrkdwn", text: `*Why*\n${esc(TRIGGER_LABEL[f.trigger])}` },
          { type: "mrkdwn", text: `*Deadline*\n${slackDate(f.reviewItem.deadline)}` },
          { type: "mrkdwn", text: `*Escalated*\n${slackDate(f.escalatedAt)}` },
        ],
      },
      { type: "section", text: { type: "mrkdwn", text: `*Reason*\n${reason}` } },
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Decide in Stopline" }, url: f.links.reviewItem, style: "danger" }] },
      { type: "context", elements: [{ type: "mrkdwn", text: `Review item ${esc(f.reviewItem.id)} · ${esc(f.reviewItem.status)}` }] },
    ],
  };
}
