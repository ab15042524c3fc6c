import type { Metadata } from "next";
import { ConsoleNav } from "@/components/console/console-nav";
import { ConsoleGate, isConsolePrincipal } from "@/components/console/detail/sign-in-gate";
import { MetricsDashboard } from "@/components/console/metrics/metrics-dashboard";
import { QueryProvider } from "@/components/console/query-provider";
import { getSignedInPrincipal } from "@/lib/auth/current-principal";
import { capabilitiesOf } from "@/lib/auth/capabilities";

export const metadata: Metadata = { title: "Metrics" };

// Who is signed in is decided per request, from the session cookie.
export const dynamic = "force-dynamic";

export default async function MetricsPage() {
  const principal = await getSignedInPrincipal();
  if (!isConsolePrincipal(principal)) return <ConsoleGate principal={principal} what="Cancellation metrics are part of the console." next="/console/metrics" />;
  return (
    <QueryProvider>
      <ConsoleNav current="metrics" can={capabilitiesOf(principal.role)} />
      <MetricsDashboard />
    </QueryProvider>
  );
}
