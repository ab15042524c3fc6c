import type { Metadata } from "next";
import { AuditConsole } from "@/components/audit/audit-console";
import { AUDIT_FIELDS, type AuditFields } from "@/components/audit/fields";
import { ConsoleNav } from "@/components/console/console-nav";
import { ConsoleGate, isConsolePrincipal } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Audit" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [principal, params] = await Promise.all([getSignedInPrincipal(), searchParams]);
  // Signed out: the account sign-in, back here. Signed in with a role the audit is not for (a person with the user
  // role): a card that says so and links to their chat — never a second sign-in form.
  if (!isConsolePrincipal(principal)) {
    return <ConsoleGate principal={principal} page="audit" what="The audit shows what agents changed, with the evidence, and exports it." next="/audit" />;
  }
  const initial: AuditFields = {};
  for (const k of AUDIT_FIELDS) {
    const v = params[k];
    if (typeof v === "string" && v) initial[k] = v;
  }
  // Older links name the owner as ownerId; the search field takes it as the user.
  if (!initial.user && typeof params.ownerId === "string" && params.ownerId) initial.user = params.ownerId;
  return (
    <QueryProvider>
      <ConsoleNav current="audit" can={capabilitiesOf(principal.role)} />
      <AuditConsole key={JSON.stringify(initial)} initial={initial} />
    </QueryProvider>
  );
}
