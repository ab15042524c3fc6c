import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { TaskResources } from "../../../../components/console/detail/task-resources";
import type { TaskDetail } from "../../../../components/console/detail/types";

/**
 * The console's Resources card (issue 19, random conformance SQLite seed 1209 #324): an export whose worker died after
 * its start may hold a lock and a temp file at the service with no handle in the ledger yet — the operator reads
 * "may be held", never "This task held no resources".
 */
const AT = "2026-12-05T18:00:00.000Z";
const exportItem = (status: string, leaseExpiresAt: string | null) => ({
  id: "wi-1",
  toolName: "reports.export_report",
  status,
  leaseExpiresAt,
  serviceRunningAt: null,
});
const intents = [
  { id: "ri-1", workItemId: "wi-1", type: "lock", key: "key-1", createdAt: AT },
  { id: "ri-2", workItemId: "wi-1", type: "temp_file", key: "key-1", createdAt: AT },
];
const render = (task: Partial<TaskDetail>) => {
  const detail = { resources: [], openResourceIntents: [], cancelRequestedAt: null, ...task } as unknown as TaskDetail;
  const toolOf = new Map(detail.workItems.map((w) => [w.id, w.toolName]));
  return renderToStaticMarkup(createElement(TaskResources, { task: detail, toolOf })).replace(/<!-- -->/g, "");
};

describe("the console's Resources card and what a call may hold without a handle", () => {
  it("after a Stop, an uncertain export's open intents read 'may be held', by kind, with the call's key", () => {
    const html = render({ cancelRequestedAt: AT, workItems: [exportItem("uncertain", AT)] as TaskDetail["workItems"], openResourceIntents: intents });
    expect(html).not.toContain("This task held no resources.");
    expect(html.match(/data-testid="resource-intent"/g)).toHaveLength(2);
    expect(html).toContain("lock of exporting the report");
    expect(html).toContain("temp file of exporting the report");
    expect(html).toContain("may be held");
    expect(html).toContain(
      "may still be held at its service (the step&#x27;s answer never came back); Stopline asks the service, then releases and verifies it",
    );
    expect(html).toContain("key-1");
  });

  it("with no Stop, a running call's intents are only what it may take next: not listed", () => {
    const html = render({ workItems: [exportItem("running", AT)] as TaskDetail["workItems"], openResourceIntents: intents });
    expect(html).toContain("This task held no resources.");
    expect(html).not.toContain("resource-intent");
  });

  it("with no Stop, a call whose worker is gone (uncertain, no lease) may hold them: listed", () => {
    const html = render({ workItems: [exportItem("uncertain", null)] as TaskDetail["workItems"], openResourceIntents: intents });
    expect(html.match(/data-testid="resource-intent"/g)).toHaveLength(2);
  });
});
