import { PasswordSignInForm } from "@/components/auth/password-sign-in-form";
import { Card } from "@/components/ui/card";
import { SignInForm } from "./sign-in-form";

/**
 * The one way in for a signed-out visitor of /chat and /console: the account sign-in (e-mail and password)
 * first; an admin API token is a secondary option behind a disclosure (machines and bootstrap admins use it).
 */
export function EntrySignIn({ title, what, next }: { title: string; what: React.ReactNode; next: string }) {
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8" data-testid="entry-sign-in">
        <h1 className="text-xl font-semibold tracking-tight text-ink">{title}</h1>
        <p className="mt-2 mb-6 text-sm leading-6 text-muted">{what}</p>
        <PasswordSignInForm next={next} />
        <details className="mt-6 border-t border-line pt-4 text-sm" data-testid="api-token-option">
          <summary className="cursor-pointer font-medium text-muted hover:text-ink">Sign in with an API token instead</summary>
          <p className="mt-2 mb-4 text-xs leading-5 text-muted">
            For administrators with an admin API token. This browser then keeps a session in an httpOnly cookie, never the token.
          </p>
          <SignInForm />
        </details>
      </Card>
    </div>
  );
}
