import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { QueryProvider } from "@/components/console/query-provider";
import { ConsoleGate, isConsolePrincipal } from "@/components/console/detail/sign-in-gate";
import { TaskConsole } from "@/components/console/task-console";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Console" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function ConsolePage() {
  const principal = await getSignedInPrincipal();

  if (!isConsolePrincipal(principal))
    return (
      <ConsoleGate
        principal={principal}
        what="The console shows every task and what its agents are doing, live, for operators, support and admins."
        next="/console"
      />
    );

  const can = capabilitiesOf(principal.role);
  return (
    <QueryProvider>
      <ConsoleNav current="tasks" can={can} />
      <TaskConsole signedInAs={principal.name} can={can} />
    </QueryProvider>
  );
}
