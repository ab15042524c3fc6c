import type { Metadata } from "next";
import { Card } from "@/components/ui/card";
import { ConsoleNav } from "@/components/console/console-nav";
import { QueryProvider } from "@/components/console/query-provider";
import { SignInForm } from "@/components/console/sign-in-form";
import { TaskConsole } from "@/components/console/task-console";
import { getConsolePrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Console" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function ConsolePage() {
  const principal = await getConsolePrincipal();

  if (!principal) {
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
          <p className="mt-2 mb-6 text-sm leading-6 text-muted">
            The console shows every task and what its agents are doing, live. Sign in with an admin API token; it is
            kept in an httpOnly cookie for this browser only. Operators, support and admins can also{" "}
            <a href="/sign-in?next=/console" className="font-medium text-ink underline">
              use their account
            </a>
            .
          </p>
          <SignInForm />
        </Card>
      </div>
    );
  }

  const can = capabilitiesOf(principal.role);
  return (
    <QueryProvider>
      <ConsoleNav current="tasks" can={can} />
      <TaskConsole signedInAs={principal.name} can={can} />
    </QueryProvider>
  );
}
