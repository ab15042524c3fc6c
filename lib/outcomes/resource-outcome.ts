import { isTerminalItem, ResourceIntentState, ResourceState, WorkItemStatus } from "../ledger/states";
import type { Tone } from "./words";

/**
 * What became of a resource a child held (a lock, a temp file, a draft): invariant 4 — "released" only once a
 * verification query confirmed it. One function for the question, one record of words.
 */
export const ResourceOutcome = {
  /** Held by a child that is still at work (nothing to release yet). */
  inUse: "in_use",
  /** Held by a child that could not be stopped and still runs: released and verified once it ends. */
  heldByRunningStep: "held_by_running_step",
  /**
   * Written ahead and not yet named (issue 19): the call may hold it at its service, but its answer never came back
   * with a handle. Stopline asks the service what the call holds, then releases and verifies it.
   */
  mayBeHeld: "may_be_held",
  /** The child ended; its release is being checked. */
  beingReleased: "being_released",
  /** A verification query confirmed it released. */
  released: "released",
  /** Still held after cleanup and one retry (or Stopline has no way to release it): an operator is asked to handle it. */
  notReleased: "not_released",
  /**
   * Written ahead, never named, and its service could not say whether the call holds it (resolve-intents.ts: an
   * ORPHANED resource named by the call's key stands for it): an operator is asked to check. Never "could not be
   * released" — no release was tried, and the service may hold nothing (random conformance, PostgreSQL seed 1207 #126).
   */
  serviceCouldNotSay: "service_could_not_say",
  /**
   * No Stop: its step ended and reported it released. Stopline verifies releases only after a Stop, so this is the
   * step's word, never "released" (invariant 4) — and never "being released" forever (issue 20, item 7).
   */
  reportedReleased: "reported_released",
  /** No Stop: its step ended without reporting it released. Nothing is releasing or checking it. */
  leftHeld: "left_held",
} as const;
export type ResourceOutcome = (typeof ResourceOutcome)[keyof typeof ResourceOutcome];

export const RESOURCE_WORDS: Record<ResourceOutcome, { short: string; phrase: string; tone: Tone }> = {
  [ResourceOutcome.inUse]: { short: "in use", phrase: "in use by its step", tone: "neutral" },
  [ResourceOutcome.heldByRunningStep]: {
    short: "still held",
    phrase: "still held by a step that is still running; released and verified once it ends",
    tone: "warn",
  },
  [ResourceOutcome.mayBeHeld]: {
    short: "may be held",
    phrase: "may still be held at its service (the step's answer never came back); Stopline asks the service, then releases and verifies it",
    tone: "warn",
  },
  [ResourceOutcome.beingReleased]: { short: "being released", phrase: "being released and verified", tone: "warn" },
  [ResourceOutcome.released]: { short: "released", phrase: "released (verified)", tone: "ok" },
  [ResourceOutcome.notReleased]: { short: "not released", phrase: "could not be released; an operator has been asked to handle it", tone: "danger" },
  [ResourceOutcome.serviceCouldNotSay]: {
    short: "unconfirmed",
    phrase: "may still be held at its service, which could not say; an operator has been asked to check it",
    tone: "danger",
  },
  [ResourceOutcome.reportedReleased]: {
    short: "released by its step",
    phrase: "released by its step (not verified: Stopline checks releases after a Stop)",
    tone: "neutral",
  },
  [ResourceOutcome.leftHeld]: {
    short: "left held",
    phrase: "its step ended without releasing it; nothing was stopped, so Stopline has not checked it",
    tone: "warn",
  },
};

/**
 * The word before the time of its last verification query: "verified" only when that query confirmed the release
 * (invariant 4); a query that found it still held is a check, not a verification.
 */
export const verificationWord = (outcome: ResourceOutcome): "verified" | "last checked" => (outcome === ResourceOutcome.released ? "verified" : "last checked");

/**
 * A resource as its outcome needs it. `serviceCouldNotSay`: it stands for a written-ahead intent its service could not
 * answer for (the intent `unresolved`, bound to this resource — resourcesWithIntents, lib/ledger/resource-intents.ts).
 */
export type ResourceFacts = { state: string; serviceCouldNotSay?: boolean };

/**
 * @param stepStillRunning the child holding it has not ended (it is running, being stopped, or could not be stopped)
 */
export function resourceOutcome(resource: ResourceFacts, stepStillRunning: boolean, stopped: boolean): ResourceOutcome {
  switch (resource.state) {
    case ResourceState.released:
      return ResourceOutcome.released;
    case ResourceState.orphaned:
      return resource.serviceCouldNotSay ? ResourceOutcome.serviceCouldNotSay : ResourceOutcome.notReleased;
    default:
      // Without a Stop nothing releases or verifies it: say what the step reported, not "being released".
      if (!stepStillRunning && !stopped) return resource.state === ResourceState.releaseRequested ? ResourceOutcome.reportedReleased : ResourceOutcome.leftHeld;
      if (!stepStillRunning) return ResourceOutcome.beingReleased;
      return stopped ? ResourceOutcome.heldByRunningStep : ResourceOutcome.inUse;
  }
}

/** The facts of the step that holds a resource, as the ledger (or the API) gives them. */
export type ResourceHolder = { status: string; leaseExpiresAt?: Date | string | null; serviceRunningAt?: Date | string | null };

/**
 * Is the step that holds a resource still at work? Not once it ended, nor when it is uncertain with no live worker
 * (its worker is gone: what it held is Stopline's to clean up) — unless its service said the call still runs
 * (`serviceRunningAt`): then what it holds is held by running work, released and verified once it ends.
 */
export const holderStillAtWork = (holder: ResourceHolder | undefined): boolean =>
  !!holder && !isTerminalItem(holder.status) && !(holder.status === WorkItemStatus.uncertain && !holder.leaseExpiresAt && !holder.serviceRunningAt);

/** What became of a resource, from the resource and the step that holds it (the summary, the console and the chat). */
export const resourceOutcomeOf = (resource: ResourceFacts, holder: ResourceHolder | undefined, stopped: boolean): ResourceOutcome =>
  resourceOutcome(resource, holderStillAtWork(holder), stopped);

/**
 * The intents what people read reports: `open` (the call may hold it, nothing answered for it yet) and `unresolved`
 * (its service could not say; an ORPHANED resource named by the call's key stands for it, and a person checks).
 */
export const REPORTED_INTENT_STATES: string[] = [ResourceIntentState.open, ResourceIntentState.unresolved];

/**
 * The resources, each marked `serviceCouldNotSay` when it stands for an unresolved intent (bound to it by
 * resolve-intents.ts): its outcome is "may still be held at its service, which could not say", never "could not be
 * released" — no release was tried, and the service may hold nothing (resourceOutcome below).
 */
export function withServiceCouldNotSay<R extends { id: string }>(
  resources: R[],
  intents: { state: string; resourceId?: string | null }[],
): (R & { serviceCouldNotSay: boolean })[] {
  const unanswered = new Set(intents.filter((i) => i.state === ResourceIntentState.unresolved && i.resourceId).map((i) => i.resourceId));
  return resources.map((r) => ({ ...r, serviceCouldNotSay: unanswered.has(r.id) }));
}
