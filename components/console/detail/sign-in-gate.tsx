import { Card } from "@/components/ui/card";
import { SignInForm } from "@/components/console/sign-in-form";

/** What a signed-out visitor sees instead of an operator page. */
export function SignInGate({ what }: { what: string }) {
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8">
        <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to the console</h1>
        <p className="mt-2 mb-6 text-sm leading-6 text-muted">
          {what} Sign in with an admin API token; it is kept in an httpOnly cookie for this browser only.
        </p>
        <SignInForm />
      </Card>
    </div>
  );
}
