import Link from "next/link";
import { buttonStyles } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EntrySignIn } from "@/components/console/entry-sign-in";
import type { Principal } from "@/lib/auth/tokens";
import { CONSOLE_ROLES } from "@/lib/auth/permissions";

/**
 * What a signed-out visitor sees instead of a console page: what the page is for and the account sign-in
 * (coming back to `next`); the admin-token form is a secondary "API token" option.
 */
export function SignInGate({ what, next }: { what: string; next: string }) {
  return <EntrySignIn title="Sign in to the console" what={<>{what} People who ask the agent for something sign in to the chat instead.</>} next={next} />;
}

/** A signed-in person whose role cannot use this page: say so plainly (the API refuses them anyway). */
export function NotForRole({ title, principal, children, testId }: { title: string; principal: Principal; children: React.ReactNode; testId: string }) {
  const home = principal.role === "user" ? { href: "/chat", label: "Open your chat" } : { href: "/console", label: "Back to the console" };
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8" data-testid={testId}>
        <h1 className="text-xl font-semibold tracking-tight text-ink">{title}</h1>
        <p className="mt-2 text-sm leading-6 text-muted">
          You are signed in as <strong className="text-ink">{principal.name}</strong> with the {principal.role} role. {children}
        </p>
        <Link href={home.href} className={buttonStyles({ variant: "secondary", size: "sm", className: "mt-5" })}>
          {home.label}
        </Link>
      </Card>
    </div>
  );
}

/** Whether this principal may open the console (admin token; admin, operator or support person). */
export const isConsolePrincipal = (principal: Principal | null): principal is Principal => !!principal && CONSOLE_ROLES.includes(principal.role);

/**
 * What a console page shows to someone who may not open it: signed out → the sign-in; signed in with a role the
 * console is not for (a person with the user role) → a card that says so and links to their chat — never a
 * second sign-in.
 */
export function ConsoleGate({
  principal,
  what,
  next,
  page = "console",
}: {
  principal: Principal | null;
  what: string;
  next: string;
  page?: keyof typeof NOT_FOR_ROLE;
}) {
  if (!principal) return <SignInGate what={what} next={next} />;
  return (
    <NotForRole title={NOT_FOR_ROLE[page]} principal={principal} testId="not-for-role">
      The {page} is for operators, support and admins. Your conversations — and what each Stop did — are in your chat.
    </NotForRole>
  );
}

/** The role card's title, per gated page. */
const NOT_FOR_ROLE = {
  console: "The console is not for your role",
  audit: "The audit is not for your role",
} as const;
