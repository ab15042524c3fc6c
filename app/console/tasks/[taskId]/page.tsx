import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { ConsoleGate, isConsolePrincipal } from "@/components/console/detail/sign-in-gate";
import { TaskDetailView } from "@/components/console/detail/task-detail";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Task" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ taskId: string }> }) {
  const [principal, { taskId }] = await Promise.all([getSignedInPrincipal(), params]);
  if (!isConsolePrincipal(principal))
    return (
      <ConsoleGate
        principal={principal}
        what="A task's timeline, resources, side effects and history are part of the console."
        next={`/console/tasks/${taskId}`}
      />
    );
  const can = capabilitiesOf(principal.role);
  return (
    <QueryProvider>
      <ConsoleNav current="tasks" can={can} />
      <TaskDetailView taskId={taskId} can={can} />
    </QueryProvider>
  );
}
