import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { NotForRole, SignInGate } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { IncidentsConsole } from "@/components/incidents/incidents-console";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Incidents" };
export const dynamic = "force-dynamic";

export default async function IncidentsPage() {
  const principal = await getSignedInPrincipal();
  if (!principal)
    return (
      <SignInGate
        what="Incidents — the kill switches that quarantine a tool or an agent token — are part of the console, for operators, support and admins."
        next="/console/incidents"
      />
    );
  const can = capabilitiesOf(principal.role);
  if (!can.seeEscalations) {
    return (
      <NotForRole title="Incidents are not for your role" principal={principal} testId="not-for-role">
        Kill switches are for operators, support and admins.
      </NotForRole>
    );
  }
  return (
    <QueryProvider>
      <ConsoleNav current="incidents" can={can} />
      <IncidentsConsole canOpen={can.decideReviews} />
    </QueryProvider>
  );
}
