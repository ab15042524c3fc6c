import Link from "next/link";
import { Card } from "@/components/ui/card";
import { SignInForm } from "@/components/console/sign-in-form";

/** The chat needs a signed-in person (an account, at /sign-in) or the console's admin-token session. */
export function ChatSignIn() {
  return (
    <div className="mx-auto max-w-md pt-6 sm:pt-12">
      <Card className="p-6 sm:p-8">
        <h1 className="text-xl font-semibold tracking-tight text-ink">Sign in to chat</h1>
        <p className="mt-2 mb-6 text-sm leading-6 text-muted">
          The chat talks to the demo agent on your behalf.{" "}
          <Link href="/sign-in?next=/chat" className="font-medium text-ink underline">
            Use your account (e-mail and password)
          </Link>
          , or an admin API token; this browser then keeps a session in an httpOnly cookie (never the token).
        </p>
        <SignInForm />
      </Card>
    </div>
  );
}
