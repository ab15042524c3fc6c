import type { Metadata } from "next";
import Link from "next/link";
import { ConsoleNav } from "@/components/console/console-nav";
import { EscalationsConsole } from "@/components/console/escalations/escalations-console";
import { QueryProvider } from "@/components/console/query-provider";
import { SignInForm } from "@/components/console/sign-in-form";
import { Card } from "@/components/ui/card";
import { buttonStyles } from "@/components/ui/button";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Escalations" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function EscalationsPage() {
  const principal = await getSignedInPrincipal();
  if (!principal) {
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
          <p className="mt-2 mb-6 text-sm leading-6 text-muted">
            Escalations — where overdue review items and high-risk orphans are sent, and what was delivered — are part of the console. Operators,
            support and admins{" "}
            <a href="/sign-in?next=/console/escalations" className="font-medium text-ink underline">
              sign in with their account
            </a>
            ; an admin API token works too (kept in an httpOnly cookie for this browser only).
          </p>
          <SignInForm />
        </Card>
      </div>
    );
  }
  const can = capabilitiesOf(principal.role);
  // The API refuses everyone else too (lib/api/contract.ts); this page says so instead of showing empty lists.
  if (!can.seeEscalations) {
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8" data-testid="not-for-role">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Escalations are not for your role</h1>
          <p className="mt-2 text-sm leading-6 text-muted">
            You are signed in as <strong className="text-ink">{principal.name}</strong> ({principal.role}). Escalation channels and their delivery log are
            for operators, support and admins.
          </p>
          <Link href={principal.role === "user" ? "/chat" : "/"} className={buttonStyles({ variant: "secondary", size: "sm", className: "mt-5" })}>
            {principal.role === "user" ? "Back to the chat" : "Back"}
          </Link>
        </Card>
      </div>
    );
  }
  return (
    <QueryProvider>
      <ConsoleNav current="escalations" can={can} />
      <EscalationsConsole can={{ manageEscalations: can.manageEscalations }} />
    </QueryProvider>
  );
}
