import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { counters } from "./counters";

/**
 * The Prometheus metrics of this process (prom-client), one registry per process whichever copy of this module
 * asks (Next.js's bundle and the server's own source both run in `npm start`'s process: on globalThis).
 *
 * Two kinds, told apart in the README:
 * - what THIS process did (counters and the histogram; add them up over instances): Stops requested and settled,
 *   time from boundary to settlement, the children of settled Stops by outcome, tool calls started per tool;
 * - the state of the LEDGER, read from the database at each scrape (gauges, the same in every process — take max()):
 *   queue depth and running calls per tool, uncertain items, open and overdue review items (orphans included),
 *   Stops not yet settled, escalation deliveries failing or failed, lease holders, kill switches on
 *   (ledger-gauges.ts registers those with the scrape).
 */
export interface StoplineMetrics {
  registry: Registry;
  /** Someone scraped this process (see metricsWanted). */
  scraped: boolean;
  stopsRequested: Counter<"level">;
  stopsSettled: Counter<"level" | "status">;
  settleSeconds: Histogram<"level">;
  stopChildren: Counter<"outcome">;
  toolCalls: Counter<"tool">;
  gauges: Record<string, Gauge<string>>;
}

const globalForMetrics = globalThis as unknown as { stoplineMetrics?: StoplineMetrics };

export function metrics(): StoplineMetrics {
  return (globalForMetrics.stoplineMetrics ??= create());
}

function create(): StoplineMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "stopline_" }); // stopline_process_cpu_seconds_total, stopline_nodejs_eventloop_lag_seconds, …
  const r = { registers: [registry] };
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, ...r });
  return {
    registry,
    scraped: false,
    stopsRequested: new Counter({
      name: "stopline_stops_requested_total",
      help: "Stops whose boundary this process recorded (level: task, or work_item for a Stop of one step)",
      labelNames: ["level"],
      ...r,
    }),
    stopsSettled: new Counter({
      name: "stopline_stops_settled_total",
      help: "Stops whose settlement this process recorded, by the summary's status (CANCELLED, PARTIALLY_CANCELLED, CANCELLATION_FAILED)",
      labelNames: ["level", "status"],
      ...r,
    }),
    settleSeconds: new Histogram({
      name: "stopline_stop_settle_seconds",
      help: "Time from a Stop's boundary to its settlement (the engine's full pass), in seconds",
      labelNames: ["level"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
      ...r,
    }),
    stopChildren: new Counter({
      name: "stopline_stop_children_total",
      help: "Children of the Stops this process settled, by outcome (the outcome vocabulary: stopped, never_started, took_effect, outcome_unknown, could_not_stop_running, …)",
      labelNames: ["outcome"],
      ...r,
    }),
    toolCalls: new Counter({
      name: "stopline_tool_calls_started_total",
      help: "Tool calls (work items) this process started or handed to a worker — claims — by tool; rate() is the claim rate",
      labelNames: ["tool"],
      ...r,
      // Counted by the runners in counters.ts (no prom-client on the hot path); read here at each scrape.
      collect() {
        this.reset();
        for (const [tool, n] of counters.toolCalls) this.inc({ tool }, n);
      },
    }),
    gauges: {
      queueDepth: gauge("stopline_queue_depth", "Work items queued, by tool (ledger)", ["tool"]),
      running: gauge("stopline_work_items_leased", "Work items leased to a worker (running, submitted, being stopped), by tool (ledger)", ["tool"]),
      uncertain: gauge("stopline_work_items_uncertain", "Work items whose outcome is unknown and being reconciled (ledger)"),
      uncertainOverdue: gauge("stopline_work_items_uncertain_overdue", "Uncertain work items past their reconcile deadline (ledger)"),
      reviewOpen: gauge(
        "stopline_review_items_open",
        "Review items waiting for a person (open or escalated), by kind — orphaned_resource and orphaned_side_effect are the orphans (ledger)",
        ["kind"],
      ),
      reviewOverdue: gauge("stopline_review_items_overdue", "Review items past their deadline and not decided, by kind (ledger)", ["kind"]),
      reviewOldest: gauge("stopline_review_oldest_open_age_seconds", "Age of the oldest review item still waiting for a person (ledger; 0 when none)"),
      stopsUnsettled: gauge(
        "stopline_stops_unsettled",
        "Stops still being carried out: boundary recorded, children still being stopped (task stage cancel_requested) (ledger)",
      ),
      stopsUnsettledOldest: gauge("stopline_stops_unsettled_oldest_age_seconds", "Age of the oldest Stop not yet settled (ledger; 0 when none)"),
      escalationsFailing: gauge(
        "stopline_escalation_deliveries_failing",
        "Escalation deliveries that failed at least once and are waiting for their next attempt (ledger)",
      ),
      escalationsFailed: gauge(
        "stopline_escalation_deliveries_failed",
        "Escalation deliveries that gave up (every attempt failed, or the channel went away) — only ever grows (ledger)",
      ),
      escalationsPending: gauge("stopline_escalation_deliveries_pending", "Escalation deliveries not yet delivered (ledger)"),
      leaseHolder: gauge(
        "stopline_lease_holder",
        'Process leases and who holds them (1 while unexpired): lease="maintenance" is the engine\'s maintenance leader (ledger)',
        ["lease", "holder"],
      ),
      leaseExpires: gauge("stopline_lease_expires_in_seconds", "Seconds until a process lease expires (negative: expired, nobody renewed it) (ledger)", [
        "lease",
      ]),
      killSwitches: gauge("stopline_kill_switches_on", "Incident kill switches on (a lift requested still counts), by target kind: tool or token (ledger)", [
        "target_kind",
      ]),
      scrapeErrors: gauge("stopline_ledger_scrape_error", "1 when the last scrape could not read the ledger (the ledger gauges are then stale)"),
    },
  };
}

/**
 * Whether anyone reads this process's metrics: a metrics token or port is configured, or it was scraped. Until then
 * the work a metric costs beyond a counter's increment (reading a settled Stop's summary for its status and its
 * children's outcomes) is not done — a default `npm start` pays nothing for metrics nobody reads.
 */
export const metricsWanted = () => !!(process.env.STOPLINE_METRICS_TOKEN || process.env.STOPLINE_METRICS_PORT) || metrics().scraped;
