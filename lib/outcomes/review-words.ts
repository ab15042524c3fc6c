/**
 * What a person reads about a review item that concerns a resource their request held (issue 20, item 7: two orphaned
 * resources — a lock and a temp file — gave the same line twice, "An operator releases what could not be released").
 * Each line names what it is about.
 */
export function orphanedResourceReviewSentence(resourceType: string | null | undefined): string {
  const what = resourceType ? resourceType.replaceAll("_", " ") : null;
  return what ? `An operator releases the ${what} that could not be released` : "An operator releases what could not be released";
}
