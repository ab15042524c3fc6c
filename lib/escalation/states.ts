/**
 * Escalation channels and deliveries: the allowed values, defined once (plain constants: the API schemas
 * and the SDK may import this file).
 */
export const ChannelKind = {
  /** A signed JSON POST (Stopline-Signature: HMAC-SHA256 with the channel's shared secret). */
  webhook: "webhook",
  /** A Slack-compatible incoming webhook: { text, blocks }. */
  slack: "slack",
} as const;
export type ChannelKind = (typeof ChannelKind)[keyof typeof ChannelKind];

export const DeliveryKind = {
  /** The review item passed its deadline (or a compensation conflicted), or a high-risk orphan appeared. */
  escalated: "escalated",
  /** An escalated item was decided: the people who were alerted learn that it is handled. */
  closedOut: "closed_out",
  /** "Send test" from the escalations page: a message that says only that the channel works (no review item). */
  test: "test",
} as const;
export type DeliveryKind = (typeof DeliveryKind)[keyof typeof DeliveryKind];

export const DeliveryStatus = {
  /** Not sent yet, or waiting for its next attempt (nextAttemptAt). */
  pending: "pending",
  /** A receiver answered 2xx. */
  delivered: "delivered",
  /** Every attempt failed, or the channel was deactivated first. Final. */
  failed: "failed",
} as const;
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];

/** Why the item was escalated. */
export const EscalationTrigger = {
  /** Nobody decided before the review deadline. */
  deadlinePassed: "deadline_passed",
  /** An orphaned resource or irreversible side effect of a high-risk task or tool: escalated at once. */
  highRiskOrphan: "high_risk_orphan",
  /** Escalated for another recorded reason (e.g. a compensation met a record someone else changed). */
  escalated: "escalated",
} as const;
export type EscalationTrigger = (typeof EscalationTrigger)[keyof typeof EscalationTrigger];

/** The `event` field of a webhook body. */
export const EscalationEvent = {
  escalated: "review_item.escalated",
  closedOut: "review_item.closed_out",
  test: "stopline.test",
} as const;
export type EscalationEvent = (typeof EscalationEvent)[keyof typeof EscalationEvent];

export const SIGNATURE_HEADER = "Stopline-Signature";
export const DELIVERY_ID_HEADER = "Stopline-Delivery-Id";
