import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { NotForRole, SignInGate } from "@/components/console/detail/sign-in-gate";
import { EscalationsConsole } from "@/components/console/escalations/escalations-console";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Escalations" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function EscalationsPage() {
  const principal = await getSignedInPrincipal();
  if (!principal) {
    return (
      <SignInGate
        what="Escalations — where overdue review items and high-risk orphans are sent, and what was delivered — are part of the console, for operators, support and admins."
        next="/console/escalations"
      />
    );
  }
  const can = capabilitiesOf(principal.role);
  // The API refuses everyone else too (lib/api/contract.ts); this page says so instead of showing empty lists.
  if (!can.seeEscalations) {
    return (
      <NotForRole title="Escalations are not for your role" principal={principal} testId="not-for-role">
        Escalation channels and their delivery log are for operators, support and admins.
      </NotForRole>
    );
  }
  return (
    <QueryProvider>
      <ConsoleNav current="escalations" can={can} />
      <EscalationsConsole can={{ manageEscalations: can.manageEscalations }} />
    </QueryProvider>
  );
}
