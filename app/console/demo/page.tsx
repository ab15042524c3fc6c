import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { DemoConsole } from "@/components/console/demo/demo-console";
import { QueryProvider } from "@/components/console/query-provider";
import { ConsoleGate, isConsolePrincipal, NotForRole } from "@/components/console/detail/sign-in-gate";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Demo services" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function DemoServicesPage() {
  const principal = await getSignedInPrincipal();

  // Fault controls are admin-only (the API refuses everyone else).
  if (!isConsolePrincipal(principal))
    return <ConsoleGate principal={principal} what="The demo services' fault controls are part of the console, for admins." next="/console/demo" />;
  const can = capabilitiesOf(principal.role);
  if (!can.administer) {
    return (
      <QueryProvider>
        <ConsoleNav current={null} can={can} />
        <NotForRole title="Admins only" principal={principal} testId="admins-only">
          The demo services&apos; fault controls are for admins.
        </NotForRole>
      </QueryProvider>
    );
  }

  return (
    <QueryProvider>
      <ConsoleNav current="demo" can={can} />
      <DemoConsole signedInAs={principal.name} />
    </QueryProvider>
  );
}
