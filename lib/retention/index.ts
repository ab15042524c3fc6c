export * from "./policy";
export * from "./archive-file";
export * from "./find-archivable-tasks";
export * from "./export-tasks";
export * from "./commit-archive";
export * from "./archive-settled-tasks";
export * from "./start-retention";
export * from "./archived-task";
