import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { ConsoleGate, isConsolePrincipal } from "@/components/console/detail/sign-in-gate";
import { QueryProvider } from "@/components/console/query-provider";
import { ReviewQueue } from "@/components/console/review/review-queue";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Review queue" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function ReviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [principal, params] = await Promise.all([getSignedInPrincipal(), searchParams]);
  // ?item=<id> (the links in escalation messages and the delivery log): that item is scrolled to and marked.
  const focusItem = typeof params.item === "string" && params.item.length <= 200 ? params.item : undefined;
  if (!isConsolePrincipal(principal))
    return (
      <ConsoleGate
        principal={principal}
        what="The review queue — compensations to approve, uncertain outcomes and orphans to resolve — is part of the console."
        next="/console/review"
      />
    );
  const can = capabilitiesOf(principal.role);
  return (
    <QueryProvider>
      <ConsoleNav current="review" can={can} />
      <ReviewQueue can={can} focusItem={focusItem} />
    </QueryProvider>
  );
}
