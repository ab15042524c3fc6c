export * from "./query-audit";
export * from "./render";
