import { Card } from "@/components/ui/card";
import { SignInForm } from "@/components/console/sign-in-form";

/** Until accounts exist, the chat uses the console's session: an admin token in an httpOnly cookie. */
export function ChatSignIn() {
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8">
        <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to chat</h1>
        <p className="mt-2 mb-6 text-sm leading-6 text-muted">
          The chat talks to the demo agent on your behalf. Sign in with an admin API token; it is kept in an httpOnly cookie for this browser only.
        </p>
        <SignInForm />
      </Card>
    </div>
  );
}
