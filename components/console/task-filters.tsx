"use client";

import { useId } from "react";
import type { TaskStage } from "@/lib/ledger/states";
import { Input } from "@/components/ui/input";
import { cx } from "@/components/ui/cx";
import { STAGES, stageLabel } from "./task-stage";

export type StageFilter = TaskStage | "all";

interface Props {
  stage: StageFilter;
  onStageChange: (stage: StageFilter) => void;
  search: string;
  onSearchChange: (search: string) => void;
  counts: Record<StageFilter, number>;
}

/** Status (stage) as a row of radio "pills" with counts, and a title search. Both filter client-side. */
export function TaskFilters({ stage, onStageChange, search, onSearchChange, counts }: Props) {
  const id = useId();
  const options: StageFilter[] = ["all", ...STAGES];
  return (
    <div className="flex flex-col gap-3 border-b border-line px-4 py-3 sm:px-5 lg:flex-row lg:items-center lg:justify-between">
      <fieldset className="min-w-0">
        <legend className="sr-only">Status</legend>
        <div className="flex flex-wrap gap-1.5">
          {options.map((option) => {
            const checked = stage === option;
            return (
              <label
                key={option}
                className={cx(
                  "relative inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-3 py-1 text-sm transition-colors select-none",
                  "has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-accent",
                  checked ? "border-accent bg-accent text-white" : "border-line bg-surface text-muted hover:bg-canvas hover:text-ink",
                )}
              >
                <input
                  type="radio"
                  name={`${id}-stage`}
                  value={option}
                  checked={checked}
                  onChange={() => onStageChange(option)}
                  // Covers the whole pill: the real radio is the click target, invisible but not hidden.
                  className="absolute inset-0 size-full cursor-pointer appearance-none rounded-full opacity-0"
                />
                <span>{option === "all" ? "All" : capitalise(stageLabel(option))}</span>
                <span className={cx("tabular-nums text-xs", checked ? "text-white/80" : "text-muted")}>{counts[option]}</span>
              </label>
            );
          })}
        </div>
      </fieldset>
      <div className="w-full lg:w-72">
        <label htmlFor={`${id}-search`} className="sr-only">
          Search task titles
        </label>
        <Input
          id={`${id}-search`}
          type="search"
          placeholder="Search titles…"
          value={search}
          onChange={(e) => onSearchChange(e.target.value)}
          className="h-9"
        />
      </div>
    </div>
  );
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
