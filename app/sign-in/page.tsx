import type { Metadata } from "next";
import Link from "next/link";
import { PasswordSignInForm } from "@/components/auth/password-sign-in-form";
import { Card } from "@/components/ui/card";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { safeNextPath } from "@/lib/auth/safe-next";
import { AccountSignOut } from "@/components/auth/account-sign-out";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  // Only a path on this site: anything else (`/\\evil.example`, `//host`, `https://…`) is dropped here.
  const next = safeNextPath((await searchParams).next) ?? undefined;
  const principal = await getSignedInPrincipal();
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8">
        <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to Stopline</h1>
        {principal?.kind === "person" ? (
          <div className="mt-4 space-y-4 text-sm leading-6 text-muted">
            <p>
              You are signed in as <strong className="text-ink">{principal.name}</strong> ({principal.role}).
            </p>
            <p className="flex gap-3">
              <Link className="text-ink underline" href={principal.role === "user" ? "/chat" : "/console"}>
                Continue
              </Link>
              <Link className="text-ink underline" href="/account">
                Your account
              </Link>
            </p>
            <AccountSignOut />
          </div>
        ) : (
          <>
            <p className="mt-2 mb-6 text-sm leading-6 text-muted">
              Use your Stopline account. People with the user role chat with the agent and stop their own tasks; operators, support and admins open the console.
            </p>
            <PasswordSignInForm next={next} />
            <p className="mt-6 text-xs leading-5 text-muted">
              Machine clients use API tokens; an admin token also opens the{" "}
              <Link className="underline" href="/console">
                console
              </Link>
              .
            </p>
          </>
        )}
      </Card>
    </div>
  );
}
