import Link from "next/link";
import { buttonStyles } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { SignInForm } from "@/components/console/sign-in-form";
import type { Principal } from "@/lib/auth/tokens";

/**
 * What a signed-out visitor sees instead of a console page: what the page is for, a link to sign in with an
 * account (coming back to `next`), and the admin-token form.
 */
export function SignInGate({ what, next }: { what: string; next: string }) {
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8">
        <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
        <p className="mt-2 mb-6 text-sm leading-6 text-muted">
          {what}{" "}
          <Link href={`/sign-in?next=${encodeURIComponent(next)}`} className="font-medium text-ink underline">
            Sign in with your account
          </Link>
          , or with an admin API token below (this browser then keeps a session in an httpOnly cookie, never the token).
        </p>
        <SignInForm />
      </Card>
    </div>
  );
}

/** A signed-in person whose role cannot use this page: say so plainly (the API refuses them anyway). */
export function NotForRole({ title, principal, children, testId }: { title: string; principal: Principal; children: React.ReactNode; testId: string }) {
  const home = principal.role === "user" ? { href: "/chat", label: "Back to the chat" } : { href: "/console", label: "Back to the console" };
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
