/**
 * The ledger events of administration: who created or revoked an API token, created an account, changed a
 * role, disabled or enabled an account, added or removed an escalation channel. Each is appended in the same
 * transaction as the change it records (account creation excepted: see create-account.ts).
 *
 * `data` says what changed and is read by every principal of GET /api/events and by admins on the history
 * page, so it never holds a credential: no token, token hash, password or password hash, webhook secret, or
 * full webhook URL (a Slack incoming-webhook URL is itself a credential — only its safe preview is kept).
 * The shapes below are the whole of what may be recorded.
 *
 * Plain constants and types only (the API schemas, and through them the SDK, import this file).
 */
/** What administration changes; events about these carry no task. Entity types of lib/ledger/write.ts. */
export declare const AdminEntity: {
    readonly token: "token";
    readonly account: "account";
    readonly escalationChannel: "escalationChannel";
};
export type AdminEntity = (typeof AdminEntity)[keyof typeof AdminEntity];
export declare const ADMIN_ENTITIES: AdminEntity[];
export declare const AdminEvent: {
    readonly tokenCreated: "token.created";
    readonly tokenRevoked: "token.revoked";
    readonly accountCreated: "account.created";
    readonly accountRoleChanged: "account.role_changed";
    readonly accountDisabled: "account.disabled";
    readonly accountEnabled: "account.enabled";
    readonly channelCreated: "escalation_channel.created";
    readonly channelRemoved: "escalation_channel.removed";
};
export type AdminEventType = (typeof AdminEvent)[keyof typeof AdminEvent];
export declare const ADMIN_EVENT_TYPES: AdminEventType[];
interface TokenFacts {
    name: string;
    role: string;
    /** The first 8 characters the token list shows (`stl_` + 4): identifies it, authenticates nothing. */
    prefix: string;
}
interface AccountFacts {
    email: string;
    name: string;
    role: string;
}
interface ChannelFacts {
    name: string;
    kind: string;
    /** channelView's preview: no query string, a Slack path shortened. */
    urlPreview: string;
    hasSecret: boolean;
}
export interface AdminEventData {
    "token.created": TokenFacts;
    "token.revoked": TokenFacts;
    "account.created": AccountFacts;
    "account.role_changed": Omit<AccountFacts, "role"> & {
        from: string;
        to: string;
    };
    "account.disabled": AccountFacts & {
        sessionsEnded: number;
    };
    "account.enabled": AccountFacts & {
        disabledSince: string;
    };
    "escalation_channel.created": ChannelFacts;
    "escalation_channel.removed": ChannelFacts & {
        pendingDeliveriesFailed: number;
    };
}
/** An administrative event as Writer.event (lib/ledger/write.ts) appends it. */
export interface AdminEventInput {
    taskId: null;
    workItemId: null;
    entityType: AdminEntity;
    entityId: string;
    actor: string;
    type: AdminEventType;
    fromState: string | null;
    toState: string | null;
    data: Record<string, unknown>;
}
/** The event for one administrative change: no task, the entity the type belongs to, typed data. */
export declare function adminEvent<T extends AdminEventType>(type: T, input: {
    entityId: string;
    actor: string;
    fromState?: string | null;
    toState?: string | null;
    data: AdminEventData[T];
}): AdminEventInput;
export {};
