import type { Metadata } from "next";
import { AdminConsole } from "@/components/console/admin/admin-console";
import { ConsoleNav } from "@/components/console/console-nav";
import { NotForRole, SignInGate } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { capabilitiesOf } from "@/lib/auth/capabilities";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { CONSOLE_ROLES } from "@/lib/auth/permissions";

export const metadata: Metadata = { title: "Accounts & tokens" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function AdminPage() {
  const principal = await getSignedInPrincipal();
  if (!principal) return <SignInGate what="Accounts and API tokens are administered in the console, by admins." next="/console/admin" />;
  const can = capabilitiesOf(principal.role);

  // Signed in, but not an admin: say so plainly (the API refuses these routes to them anyway).
  if (!can.administer) {
    return (
      <QueryProvider>
        {CONSOLE_ROLES.includes(principal.role) && <ConsoleNav current={null} can={can} />}
        <NotForRole title="Admins only" principal={principal} testId="admins-only">
          Accounts and API tokens are managed by admins; ask one if you need an account or a token changed.
        </NotForRole>
      </QueryProvider>
    );
  }

  return (
    <QueryProvider>
      <ConsoleNav current="admin" can={can} />
      <AdminConsole viewer={{ id: principal.id, kind: principal.kind === "person" ? "person" : "token" }} signedInAs={principal.name} />
    </QueryProvider>
  );
}
