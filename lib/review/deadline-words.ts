/**
 * What a review deadline is called, relative to now: "overdue by 12 min", "due in 3 h". One function for the
 * review queue, the task list and the nav, so every page says the same thing about the same recorded instant
 * (ReviewItem.deadline — the instant the person was told and the instant the escalation fires).
 */
export function deadlineWords(deadline: Date | string | number, now: number): string {
  const at = typeof deadline === "number" ? deadline : new Date(deadline).getTime();
  const diff = at - now;
  if (Math.abs(diff) < 60_000) return diff < 0 ? "overdue by less than a minute" : "due in less than a minute";
  const minutes = Math.round(Math.abs(diff) / 60_000);
  const span = minutes < 60 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} days`;
  return diff < 0 ? `overdue by ${span}` : `due in ${span}`;
}
