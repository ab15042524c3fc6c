"use client";

import { useId } from "react";
import { Badge } from "@/components/ui/badge";
import { FaultsForm } from "./faults-form";
import { faultsOn, serviceTitle, type DemoService } from "./types";
import { WitnessLog } from "./witness-log";

/** One demo service: what it stands for, its fault controls in force, and what it really did. */
export function ServiceCard({ service }: { service: DemoService }) {
  const id = useId();
  const on = faultsOn(service.faults);
  return (
    <section
      aria-labelledby={`${id}-title`}
      data-service={service.name}
      className="flex flex-col overflow-hidden rounded-card border border-line bg-surface shadow-xs"
    >
      <header className="flex items-start justify-between gap-3 border-b border-line px-5 py-4">
        <div className="min-w-0">
          <h2 className="flex items-baseline gap-2 text-base font-semibold text-ink">
            <span id={`${id}-title`}>{serviceTitle(service.name)}</span>
            <code className="font-mono text-xs font-normal text-muted">/{service.name}</code>
          </h2>
          <p className="mt-1 text-sm leading-6 text-muted">{service.description}</p>
        </div>
        <Badge tone={on.length ? "warn" : "ok"} className="mt-0.5" title={on.length ? `On: ${on.join(", ")}` : undefined} data-testid="fault-state">
          {on.length === 0 ? "behaving normally" : on.length === 1 ? "1 fault on" : `${on.length} faults on`}
        </Badge>
      </header>
      <FaultsForm service={service} />
      <div className="mt-auto">
        <WitnessLog service={service.name} />
      </div>
    </section>
  );
}
