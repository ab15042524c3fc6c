"use client";

import { useId } from "react";
import { RiskLevel, type TaskStage } from "@/lib/ledger/states";
import { Input } from "@/components/ui/input";
import { cx } from "@/components/ui/cx";
import { STAGES, stageLabel } from "./task-stage";

export type StageFilter = TaskStage | "all";
export type RiskFilter = RiskLevel | "any";

interface Props {
  stage: StageFilter;
  onStageChange: (stage: StageFilter) => void;
  risk: RiskFilter;
  onRiskChange: (risk: RiskFilter) => void;
  needsReview: boolean;
  onNeedsReviewChange: (needsReview: boolean) => void;
  /** Loaded tasks with a review item still open, or null while that is not known. */
  needsReviewCount: number | null;
  search: string;
  onSearchChange: (search: string) => void;
  counts: Record<StageFilter, number>;
}

const pill = (checked: boolean) =>
  cx(
    "relative inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-3 py-1 text-sm transition-colors select-none",
    "has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-accent",
    checked ? "border-accent bg-accent text-white" : "border-line bg-surface text-muted hover:bg-canvas hover:text-ink",
  );
// Covers the whole pill: the real input is the click target, invisible but not hidden.
const hiddenInput = "absolute inset-0 size-full cursor-pointer appearance-none rounded-full opacity-0";

/**
 * Status (stage) as a row of radio "pills" with counts; "needs review" and risk; and a search over the
 * title, the task, conversation and owner ids (a person's tasks by their user id — by e-mail in the audit).
 * All filter the loaded tasks client-side.
 */
export function TaskFilters(props: Props) {
  const { stage, onStageChange, risk, onRiskChange, needsReview, onNeedsReviewChange, needsReviewCount, search, onSearchChange, counts } = props;
  const id = useId();
  const options: StageFilter[] = ["all", ...STAGES];
  return (
    <div className="space-y-2.5 border-b border-line px-4 py-3 sm:px-5">
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <fieldset className="min-w-0">
          <legend className="sr-only">Status</legend>
          <div className="flex flex-wrap gap-1.5">
            {options.map((option) => {
              const checked = stage === option;
              return (
                <label key={option} className={pill(checked)}>
                  <input type="radio" name={`${id}-stage`} value={option} checked={checked} onChange={() => onStageChange(option)} className={hiddenInput} />
                  <span>{option === "all" ? "All" : capitalise(stageLabel(option))}</span>
                  <span className={cx("tabular-nums text-xs", checked ? "text-white/80" : "text-muted")}>{counts[option]}</span>
                </label>
              );
            })}
          </div>
        </fieldset>
        <div className="w-full lg:w-72">
          <label htmlFor={`${id}-search`} className="sr-only">
            Search task titles and ids (task, conversation, owner)
          </label>
          <Input
            id={`${id}-search`}
            type="search"
            placeholder="Search titles and ids…"
            value={search}
            onChange={(e) => onSearchChange(e.target.value)}
            className="h-9"
          />
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label className={pill(needsReview)}>
          <input type="checkbox" checked={needsReview} onChange={(e) => onNeedsReviewChange(e.target.checked)} className={hiddenInput} />
          <span>Needs review</span>
          <span className={cx("tabular-nums text-xs", needsReview ? "text-white/80" : "text-muted")}>{needsReviewCount ?? "…"}</span>
        </label>
        <label htmlFor={`${id}-risk`} className="sr-only">
          Risk
        </label>
        <select
          id={`${id}-risk`}
          value={risk}
          onChange={(e) => onRiskChange(e.target.value as RiskFilter)}
          className="h-8 rounded-full border border-line bg-surface px-3 text-sm text-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
        >
          <option value="any">Any risk</option>
          {Object.values(RiskLevel).map((level) => (
            <option key={level} value={level}>
              {capitalise(level)} risk
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
