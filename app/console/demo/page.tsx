import type { Metadata } from "next";
import { Card } from "@/components/ui/card";
import { ConsoleNav } from "@/components/console/console-nav";
import { DemoConsole } from "@/components/console/demo/demo-console";
import { QueryProvider } from "@/components/console/query-provider";
import { SignInForm } from "@/components/console/sign-in-form";
import { getConsolePrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Demo services" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function DemoServicesPage() {
  const principal = await getConsolePrincipal();

  // Fault controls are admin-only (the API refuses everyone else); operators and support see the sign-in.
  if (!principal || principal.role !== "admin") {
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
          <p className="mt-2 mb-6 text-sm leading-6 text-muted">
            The demo services&apos; fault controls are part of the console. Sign in with an admin API token; it is kept in an httpOnly
            cookie for this browser only.
          </p>
          <SignInForm />
        </Card>
      </div>
    );
  }

  return (
    <QueryProvider>
      <ConsoleNav current="demo" can={capabilitiesOf(principal.role)} />
      <DemoConsole signedInAs={principal.name} />
    </QueryProvider>
  );
}
