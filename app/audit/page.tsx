import type { Metadata } from "next";
import { AuditConsole } from "@/components/audit/audit-console";
import { AUDIT_FIELDS, type AuditFields } from "@/components/audit/fields";
import { ConsoleNav } from "@/components/console/console-nav";
import { SignInGate } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { getConsolePrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Audit" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [principal, params] = await Promise.all([getConsolePrincipal(), searchParams]);
  if (!principal) return <SignInGate what="The audit shows what agents changed, with the evidence, and exports it." next="/audit" />;
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
