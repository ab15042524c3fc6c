import type { Metadata } from "next";
import Link from "next/link";
import { AdminConsole } from "@/components/console/admin/admin-console";
import { ConsoleNav } from "@/components/console/console-nav";
import { QueryProvider } from "@/components/console/query-provider";
import { SignInForm } from "@/components/console/sign-in-form";
import { Card } from "@/components/ui/card";
import { capabilitiesOf } from "@/lib/auth/capabilities";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { CONSOLE_ROLES } from "@/lib/auth/permissions";

export const metadata: Metadata = { title: "Accounts & tokens" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function AdminPage() {
  const principal = await getSignedInPrincipal();
  if (!principal) {
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
          <p className="mt-2 mb-6 text-sm leading-6 text-muted">
            Accounts and API tokens are administered in the console, by admins.{" "}
            <Link href="/sign-in?next=/console/admin" className="font-medium text-ink underline">
              Sign in with your account
            </Link>
            , or with an admin API token below (kept in an httpOnly cookie for this browser only).
          </p>
          <SignInForm />
        </Card>
      </div>
    );
  }
  const can = capabilitiesOf(principal.role);

  // Signed in, but not an admin: say so plainly (the API refuses these routes to them anyway).
  if (!can.administer) {
    return (
      <>
        {CONSOLE_ROLES.includes(principal.role) && <ConsoleNav current={null} can={can} />}
        <div className="mx-auto max-w-md pt-6 sm:pt-12">
          <Card className="p-6 sm:p-8" data-testid="admins-only">
            <h1 className="text-xl font-semibold tracking-tight text-ink">Admins only</h1>
            <p className="mt-2 text-sm leading-6 text-muted">
              Accounts and API tokens are managed by admins. You are signed in as <strong className="text-ink">{principal.name}</strong> with the{" "}
              {principal.role} role, which cannot open this page. Ask an admin if you need an account or a token changed.
            </p>
            <p className="mt-4 text-sm">
              <Link href={CONSOLE_ROLES.includes(principal.role) ? "/console" : "/chat"} className="font-medium text-accent hover:underline">
                {CONSOLE_ROLES.includes(principal.role) ? "Back to the console" : "Back to the chat"}
              </Link>
            </p>
          </Card>
        </div>
      </>
    );
  }

  return (
    <QueryProvider>
      <ConsoleNav current="admin" can={can} />
      <AdminConsole viewer={{ id: principal.id, kind: principal.kind === "person" ? "person" : "token" }} signedInAs={principal.name} />
    </QueryProvider>
  );
}
