import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AccountSignOut } from "@/components/auth/account-sign-out";
import { ChangePasswordForm } from "@/components/auth/change-password-form";
import { SignOutOtherBrowsers } from "@/components/auth/sign-out-other-browsers";
import { PERSON_ROLE_OPTIONS } from "@/components/console/admin/types";
import { Badge } from "@/components/ui/badge";
import { buttonStyles } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { getAccountProfile } from "@/lib/auth/account-profile";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { db } from "@/lib/db/client";

export const metadata: Metadata = { title: "Your account" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

const DATE = new Intl.DateTimeFormat("en-GB", { dateStyle: "long", timeZone: "UTC" });

/**
 * A person's own account: who they are (name, e-mail, role), changing their password, and signing out of
 * their other browsers — all through Better Auth's own endpoints. Signed out: the sign-in page, back here after.
 * An admin token (the console's token sign-in) has no account and no password: say so and offer sign-out.
 */
export default async function AccountPage() {
  const profile = await getAccountProfile(db(), await headers());
  if (!profile) {
    const principal = await getSignedInPrincipal();
    if (!principal) redirect("/sign-in?next=/account");
    return (
      <div className="mx-auto max-w-md pt-6 sm:pt-12">
        <Card className="p-6 sm:p-8" data-testid="token-account">
          <h1 className="text-xl font-semibold tracking-tight text-ink">Signed in with an API token</h1>
          <p className="mt-2 text-sm leading-6 text-muted">
            This browser is signed in with the admin token <strong className="text-ink">{principal.name}</strong>, not with a person&apos;s account, so there is
            no password to change here. Tokens are created and revoked under{" "}
            <Link href="/console/admin" className="font-medium text-ink underline">
              Accounts &amp; tokens
            </Link>
            .
          </p>
          <div className="mt-5">
            <AccountSignOut />
          </div>
        </Card>
      </div>
    );
  }

  const role = PERSON_ROLE_OPTIONS.find((o) => o.value === profile.role);
  const home = profile.role === "user" ? { href: "/chat", label: "Go to the chat" } : { href: "/console", label: "Go to the console" };
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Your account</h1>
          <p className="mt-1 text-sm text-muted">Who you are in Stopline, your password and where you are signed in.</p>
        </div>
        <Link href={home.href} className={buttonStyles({ variant: "secondary", size: "sm" })}>
          {home.label}
        </Link>
      </div>

      <Card as="section" aria-labelledby="account-who" className="p-6" data-testid="account-identity">
        <h2 id="account-who" className="text-base font-semibold text-ink">
          Who you are
        </h2>
        <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[8rem_1fr]">
          <dt className="text-muted">Name</dt>
          <dd className="font-medium text-ink" data-testid="account-name">
            {profile.name}
          </dd>
          <dt className="text-muted">E-mail</dt>
          <dd className="font-medium break-all text-ink" data-testid="account-email">
            {profile.email}
          </dd>
          <dt className="text-muted">Role</dt>
          <dd className="text-ink" data-testid="account-role">
            <Badge tone="accent">{role?.label ?? profile.role}</Badge>
            {role && <span className="ml-2 text-muted">— {role.hint}</span>}
          </dd>
          <dt className="text-muted">Member since</dt>
          <dd className="text-ink">
            <time dateTime={profile.createdAt.toISOString()}>{DATE.format(profile.createdAt)}</time>
          </dd>
        </dl>
        <p className="mt-4 text-xs leading-5 text-muted">Your name, e-mail address and role are set by an admin; ask one to change them.</p>
      </Card>

      <Card as="section" className="p-6">
        {profile.hasPassword ? (
          <ChangePasswordForm email={profile.email} />
        ) : (
          <>
            <h2 className="text-base font-semibold text-ink">Change password</h2>
            <p className="mt-1 text-sm leading-6 text-muted">This account signs in without a password, so there is none to change here.</p>
          </>
        )}
      </Card>

      <Card as="section" aria-labelledby="account-sessions" className="p-6">
        <h2 id="account-sessions" className="text-base font-semibold text-ink">
          Where you are signed in
        </h2>
        <div className="mt-2">
          <SignOutOtherBrowsers otherSessions={profile.otherSessions} />
        </div>
        <div className="mt-2 flex flex-wrap items-center justify-between gap-3 border-t border-line pt-5">
          <p className="text-sm text-muted">Leaving a shared computer? Sign out here.</p>
          <AccountSignOut label="Sign out of this browser" />
        </div>
      </Card>
    </div>
  );
}
