import type { TaskDetail } from "./api";

/**
 * "While you were away": this browser remembers the last state of each request it showed (localStorage,
 * per conversation). When the conversation is opened again, the ledger's current state is compared with
 * it, and every step that moved meanwhile is listed with the time the ledger recorded. Nothing is sent to
 * the server; closing the tab changes nothing there.
 */

interface Snapshot {
  savedAt: string;
  tasks: Record<string, { stage: string; items: Record<string, string> }>;
}

export interface Change {
  taskId: string;
  /** null for the request itself (its stage). */
  itemId: string | null;
  toolName: string | null;
  from: string | null;
  to: string;
  at: string;
}

const key = (conversationId: string) => `stopline.chat.seen.${conversationId}`;

export function readSnapshot(conversationId: string): Snapshot | null {
  try {
    const raw = window.localStorage.getItem(key(conversationId));
    return raw ? (JSON.parse(raw) as Snapshot) : null;
  } catch {
    return null;
  }
}

export function writeSnapshot(conversationId: string, details: TaskDetail[]) {
  const snapshot: Snapshot = {
    savedAt: new Date().toISOString(),
    tasks: Object.fromEntries(details.slice(-50).map((d) => [d.id, { stage: d.stage, items: Object.fromEntries(d.workItems.map((i) => [i.id, i.status])) }])),
  };
  try {
    window.localStorage.setItem(key(conversationId), JSON.stringify(snapshot));
  } catch {
    /* storage full or disabled: the page works without it */
  }
}

/** What changed since the snapshot, per request, oldest change first. Requests it never saw are not news. */
export function changesSince(snapshot: Snapshot, details: TaskDetail[]): Change[] {
  const changes: Change[] = [];
  for (const d of details) {
    const before = snapshot.tasks[d.id];
    if (!before) continue;
    if (before.stage !== d.stage) {
      changes.push({ taskId: d.id, itemId: null, toolName: null, from: before.stage, to: d.stage, at: d.updatedAt });
    }
    for (const item of d.workItems) {
      const was = before.items[item.id] ?? null;
      if (was !== item.status) {
        changes.push({ taskId: d.id, itemId: item.id, toolName: item.toolName, from: was, to: item.status, at: item.finishedAt ?? item.updatedAt });
      }
    }
  }
  return changes.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
