/**
 * Escalation channels and deliveries: the allowed values, defined once (plain constants: the API schemas
 * and the SDK may import this file).
 */
export declare const ChannelKind: {
    /** A signed JSON POST (Stopline-Signature: HMAC-SHA256 with the channel's shared secret). */
    readonly webhook: "webhook";
    /** A Slack-compatible incoming webhook: { text, blocks }. */
    readonly slack: "slack";
};
export type ChannelKind = (typeof ChannelKind)[keyof typeof ChannelKind];
export declare const DeliveryKind: {
    /** The review item passed its deadline (or a compensation conflicted), or a high-risk orphan appeared. */
    readonly escalated: "escalated";
    /** An escalated item was decided: the people who were alerted learn that it is handled. */
    readonly closedOut: "closed_out";
    /** "Send test" from the escalations page: a message that says only that the channel works (no review item). */
    readonly test: "test";
};
export type DeliveryKind = (typeof DeliveryKind)[keyof typeof DeliveryKind];
export declare const DeliveryStatus: {
    /** Not sent yet, or waiting for its next attempt (nextAttemptAt). */
    readonly pending: "pending";
    /** A receiver answered 2xx. */
    readonly delivered: "delivered";
    /** Every attempt failed, or the channel was deactivated first. Final. */
    readonly failed: "failed";
};
export type DeliveryStatus = (typeof DeliveryStatus)[keyof typeof DeliveryStatus];
/** Why the item was escalated. */
export declare const EscalationTrigger: {
    /** Nobody decided before the review deadline. */
    readonly deadlinePassed: "deadline_passed";
    /** An orphaned resource or irreversible side effect of a high-risk task or tool: escalated at once. */
    readonly highRiskOrphan: "high_risk_orphan";
    /** Escalated for another recorded reason (e.g. a compensation met a record someone else changed). */
    readonly escalated: "escalated";
};
export type EscalationTrigger = (typeof EscalationTrigger)[keyof typeof EscalationTrigger];
/** The `event` field of a webhook body. */
export declare const EscalationEvent: {
    readonly escalated: "review_item.escalated";
    readonly closedOut: "review_item.closed_out";
    readonly test: "stopline.test";
};
export type EscalationEvent = (typeof EscalationEvent)[keyof typeof EscalationEvent];
export declare const SIGNATURE_HEADER = "Stopline-Signature";
export declare const DELIVERY_ID_HEADER = "Stopline-Delivery-Id";
