/**
 * Every query key of the console and the chat, in one place: a page that changes something invalidates by these,
 * and two components that read the same resource share one cache entry (the nav's counts and the review queue
 * read the same review items; the escalations page and the nav the same channels).
 */
export const QueryKeys = {
  tasks: ["tasks"] as const,
  task: (taskId: string) => ["task", taskId] as const,
  reviewItems: ["review-items"] as const,
  escalationChannels: ["escalation-channels"] as const,
  escalations: ["escalations"] as const,
  incidents: ["incidents"] as const,
  incidentTargets: ["incidents", "targets"] as const,
  // The chat's own entries (its task detail is kept apart: the chat patches it from its per-task streams).
  chat: ["chat"] as const,
  conversations: ["chat", "conversations"] as const,
  conversation: (conversationId: string) => ["chat", "conversation", conversationId] as const,
  chatTask: (taskId: string) => ["chat", "task", taskId] as const,
  summary: (taskId: string) => ["chat", "summary", taskId] as const,
} as const;
