import { z } from "zod";
import { EVENT_DATA, EVENT_TYPES } from "@/lib/api/event-schemas";
import type { JsonSchema } from "./openapi-types";
import { typeOf } from "./schema-view";

/** `field: type` for each field of an event's data (`?` when optional), or what else it may be. */
function dataFields(schema: JsonSchema): string[] {
  const object = schema.properties ? schema : (schema.anyOf ?? schema.oneOf)?.find((v) => v.properties);
  if (!object?.properties) return [typeOf(schema) === "null" ? "none" : typeOf(schema)];
  const required = new Set(object.required ?? []);
  const fields = Object.entries(object.properties).map(([name, prop]) => `${name}${required.has(name) ? "" : "?"}: ${typeOf(prop)}`);
  return object === schema ? fields : [...fields, "(or null)"];
}

/**
 * Every ledger event type and the shape of its `data`, from the API's schema (lib/api/event-schemas.ts). A list,
 * not a table: on a phone each type stacks above its fields instead of scrolling sideways.
 */
export function EventCatalogue() {
  return (
    <dl aria-label="Event types and their data" className="divide-y divide-line rounded-md border border-line text-xs">
      {EVENT_TYPES.map((type) => (
        <div key={type} data-testid="event-type" data-type={type} className="grid gap-x-4 gap-y-0.5 px-3 py-1.5 sm:grid-cols-[15rem_minmax(0,1fr)]">
          <dt className="font-mono font-medium break-all text-ink">{type}</dt>
          <dd className="font-mono text-muted">
            {dataFields(z.toJSONSchema(EVENT_DATA[type], { io: "output", unrepresentable: "any" }) as JsonSchema).map((f) => (
              <span key={f} className="mr-3 inline-block break-all">
                {f}
              </span>
            ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}
