"use client";

import { useId } from "react";
import { RiskLevel } from "@/lib/ledger/states";
import { TASK_STANDING_WORDS, TASK_STANDINGS, type TaskStanding } from "@/lib/outcomes";
import { Input } from "@/components/ui/input";
import { cx } from "@/components/ui/cx";

export type StandingFilter = TaskStanding | "all";
export type RiskFilter = RiskLevel | "any";
/** "Needs me first": overdue → due soon → uncertain → the rest (lib/review/triage.ts); or newest first. */
export type SortOrder = "needs_me" | "newest";

interface Props {
  standing: StandingFilter;
  onStandingChange: (standing: StandingFilter) => void;
  sort: SortOrder;
  onSortChange: (sort: SortOrder) => void;
  risk: RiskFilter;
  onRiskChange: (risk: RiskFilter) => void;
  needsReview: boolean;
  onNeedsReviewChange: (needsReview: boolean) => void;
  /** Loaded tasks with a review item still waiting for a decision. */
  needsReviewCount: number;
  search: string;
  onSearchChange: (search: string) => void;
  counts: Record<StandingFilter, number>;
}

const pill = (checked: boolean) =>
  cx(
    "relative inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-3 py-1 text-sm transition-colors select-none",
    "has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-accent",
    checked ? "border-accent bg-accent text-white" : "border-line bg-surface text-muted hover:bg-canvas hover:text-ink",
  );
// Covers the whole pill: the real input is the click target, invisible but not hidden.
const hiddenInput = "absolute inset-0 size-full cursor-pointer appearance-none rounded-full opacity-0";
const selectStyle =
  "h-8 rounded-full border border-line bg-surface px-3 text-sm text-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent";

/**
 * Outcome (the task's standing, in the one vocabulary) as a row of radio "pills" with counts — standings no
 * loaded task has are left out; "awaiting decision", risk and the order; and a search over the title, the task
 * id, the conversation, the owner's e-mail and the tools. All work on the loaded tasks.
 */
export function TaskFilters(props: Props) {
  const {
    standing,
    onStandingChange,
    sort,
    onSortChange,
    risk,
    onRiskChange,
    needsReview,
    onNeedsReviewChange,
    needsReviewCount,
    search,
    onSearchChange,
    counts,
  } = props;
  const id = useId();
  const options: StandingFilter[] = ["all", ...TASK_STANDINGS.filter((s) => counts[s] > 0 || s === standing)];
  return (
    <div className="space-y-2.5 border-b border-line px-4 py-3 sm:px-5">
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <fieldset className="min-w-0">
          <legend className="sr-only">Outcome</legend>
          <div className="flex flex-wrap gap-1.5">
            {options.map((option) => {
              const checked = standing === option;
              return (
                <label key={option} className={pill(checked)}>
                  <input
                    type="radio"
                    name={`${id}-standing`}
                    value={option}
                    checked={checked}
                    onChange={() => onStandingChange(option)}
                    className={hiddenInput}
                  />
                  <span>{option === "all" ? "All" : capitalise(TASK_STANDING_WORDS[option].short)}</span>
                  <span className={cx("tabular-nums text-xs", checked ? "text-white/80" : "text-muted")}>{counts[option]}</span>
                </label>
              );
            })}
          </div>
        </fieldset>
        <div className="w-full lg:w-80">
          <label htmlFor={`${id}-search`} className="sr-only">
            Search tasks by title, owner e-mail, tool, conversation or task id
          </label>
          <Input
            id={`${id}-search`}
            type="search"
            placeholder="Search owner e-mail, tool, conversation, task id…"
            value={search}
            onChange={(e) => onSearchChange(e.target.value)}
            className="h-9"
          />
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label className={pill(needsReview)}>
          <input type="checkbox" checked={needsReview} onChange={(e) => onNeedsReviewChange(e.target.checked)} className={hiddenInput} />
          <span>Awaiting decision</span>
          <span className={cx("tabular-nums text-xs", needsReview ? "text-white/80" : "text-muted")}>{needsReviewCount}</span>
        </label>
        <label htmlFor={`${id}-risk`} className="sr-only">
          Risk
        </label>
        <select id={`${id}-risk`} value={risk} onChange={(e) => onRiskChange(e.target.value as RiskFilter)} className={selectStyle}>
          <option value="any">Any risk</option>
          {Object.values(RiskLevel).map((level) => (
            <option key={level} value={level}>
              {capitalise(level)} risk
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-sort`} className="ml-auto text-xs text-muted">
          Order
        </label>
        <select id={`${id}-sort`} value={sort} onChange={(e) => onSortChange(e.target.value as SortOrder)} className={selectStyle} data-testid="sort">
          <option value="needs_me">Needs me first</option>
          <option value="newest">Newest first</option>
        </select>
      </div>
    </div>
  );
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
