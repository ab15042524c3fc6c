/**
 * The shared zod schemas of the HTTP API: route handlers parse requests with them, the OpenAPI document is
 * generated from them, and the SDK parses responses with them. They import nothing server-only.
 */
export * from "./schema/enums";
export * from "./schema/params";
export * from "./schema/resources";
export * from "./schema/incidents";
export * from "./schema/requests";
export * from "./schema/demo-agent";
export * from "./schema/task-end";
export * from "./schema/escalation";
export * from "./schema/worker-protocol";
export * from "./schema/demo-faults";
export * from "./schema/audit";
export * from "./schema/admin-accounts";
export * from "./schema/admin-history";
