export * from "./query-audit";
export * from "./render";
export * from "./archived-history";
export * from "./archived-words";
