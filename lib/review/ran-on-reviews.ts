import { RAN_ON_REVIEW } from "../outcomes/story";

/**
 * Review lines for children that ran on after the Stop although the service acknowledged the cancel (issue 20,
 * item 4: "Ignore cancellation" left no review line at all). Pure: read off the summary's `since_settlement` facts, so
 * the chat card, the console and the API say the same. Each line names the step; what it did after the Stop is in its
 * since-the-Stop line.
 */
export function ranOnReviews(
  since: readonly { tool_call_id: string; tool_name: string; ignored_cancel: boolean }[],
  name: (toolName: string) => string = (t) => t,
): { key: string; line: string }[] {
  return since.filter((s) => s.ignored_cancel).map((s) => ({ key: s.tool_call_id, line: `${name(s.tool_name)}: ${RAN_ON_REVIEW}` }));
}
