import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { NotForRole, SignInGate } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { IncidentDetailView } from "@/components/incidents/incident-detail";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Incident" };
export const dynamic = "force-dynamic";

export default async function IncidentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const principal = await getSignedInPrincipal();
  if (!principal)
    return (
      <SignInGate
        what="An incident's page — what its kill switch stopped and what needs a person — is part of the console."
        next={`/console/incidents/${id}`}
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
      <IncidentDetailView incidentId={id} canLift={can.decideReviews} />
    </QueryProvider>
  );
}
