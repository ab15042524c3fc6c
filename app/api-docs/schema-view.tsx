import type { JsonSchema } from "./openapi-types";

const SAFE = Number.MAX_SAFE_INTEGER;

/** A JSON Schema as a short type: `string`, `"low" | "high"`, `string (date-time) | null`, `object[]`. */
export function typeOf(schema: JsonSchema | undefined): string {
  if (!schema || Object.keys(schema).filter((k) => k !== "$schema").length === 0) return "any";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map(typeOf).join(" | ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return schema.properties ? "object" : "any";
  return types
    .map((t) => {
      if (t === "array") {
        const item = typeOf(schema.items);
        return item.includes(" ") ? `(${item})[]` : `${item}[]`;
      }
      if (t === "string" && schema.format) return `string (${schema.format})`;
      return t;
    })
    .join(" | ");
}

/** Limits worth reading ("1–500 chars", "≥ 1000"); the safe-integer bounds zod adds to every int are not. */
export function constraintsOf(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const out: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit = "") => {
    const lo = min !== undefined && Math.abs(min) < SAFE ? min : undefined;
    const hi = max !== undefined && Math.abs(max) < SAFE ? max : undefined;
    if (lo !== undefined && hi !== undefined) out.push(`${lo}–${hi}${unit}`);
    else if (lo !== undefined) out.push(`≥ ${lo}${unit}`);
    else if (hi !== undefined) out.push(`≤ ${hi}${unit}`);
  };
  range(schema.minLength, schema.maxLength, " chars");
  range(schema.minimum, schema.maximum);
  range(schema.minItems, schema.maxItems, " items");
  if (schema.pattern && !schema.format) out.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  for (const variant of schema.anyOf ?? []) out.push(...constraintsOf(variant));
  return out;
}

interface Field {
  path: string;
  schema: JsonSchema;
  required: boolean;
}

/** The fields of an object schema, nested objects and arrays of objects flattened as `a.b` and `a[].b`. */
function fieldsOf(schema: JsonSchema, prefix = "", depth = 0): Field[] {
  const out: Field[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push({ path, schema: child, required: schema.required?.includes(name) ?? false });
    if (depth >= 2) continue;
    const object = objectOf(child);
    if (object) out.push(...fieldsOf(object, path, depth + 1));
    const item = child.items && objectOf(child.items);
    if (item) out.push(...fieldsOf(item, `${path}[]`, depth + 1));
  }
  return out;
}

/** The object inside `T` or `T | null`, if any. */
function objectOf(schema: JsonSchema): JsonSchema | null {
  if (schema.properties) return schema;
  const nonNull = (schema.anyOf ?? []).filter((s) => s.type !== "null");
  return nonNull.length === 1 && nonNull[0].properties ? nonNull[0] : null;
}

/**
 * A readable table of an object schema's fields; a union (oneOf/anyOf of objects) as one table per variant.
 * A request marks its required fields; a response (where nearly every field is always present, null or
 * not) marks the optional ones instead.
 */
export function SchemaFields({ schema, mode = "request" }: { schema: JsonSchema; mode?: Mode }) {
  const variants = (schema.oneOf ?? schema.anyOf)?.filter((v) => v.properties);
  if (variants?.length) {
    return (
      <div className="space-y-4">
        <p className="text-xs text-muted">One of {variants.length}:</p>
        {variants.map((variant, i) => (
          <div key={i} className="space-y-1.5">
            <p className="text-xs font-medium text-ink">{variantName(variant, i)}</p>
            <FieldTable fields={fieldsOf(variant)} mode={mode} />
          </div>
        ))}
      </div>
    );
  }
  if (!schema.properties) return <p className="font-mono text-xs text-ink">{typeOf(schema)}</p>;
  const fields = fieldsOf(schema);
  if (!fields.length) return <p className="text-xs text-muted">An empty object.</p>;
  return <FieldTable fields={fields} mode={mode} />;
}

type Mode = "request" | "response";

function variantName(variant: JsonSchema, index: number): string {
  for (const [name, prop] of Object.entries(variant.properties ?? {})) {
    if (prop.const !== undefined) return `${name} = ${JSON.stringify(prop.const)}`;
  }
  return `Variant ${index + 1}`;
}

function FieldTable({ fields, mode }: { fields: Field[]; mode: Mode }) {
  const limits = fields.map((f) => constraintsOf(f.schema).join(", "));
  const anyLimits = limits.some(Boolean);
  // What a field means, where the schema says (e.g. which children each of the summary's lists holds).
  const anyMeaning = fields.some((f) => f.schema.description);
  return (
    <div
      className="relative overflow-x-auto rounded-md border border-line focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      tabIndex={0}
    >
      <table className="w-full text-left text-xs">
        <thead className="bg-canvas text-muted">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">
              Field
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Type
            </th>
            {anyLimits && (
              <th scope="col" className="px-3 py-2 font-medium">
                Limits
              </th>
            )}
            {anyMeaning && (
              <th scope="col" className="px-3 py-2 font-medium">
                Meaning
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {fields.map((field, i) => (
            <tr key={field.path} className="align-top">
              <th scope="row" className="px-3 py-1.5 font-mono font-normal whitespace-nowrap text-ink">
                <Indented path={field.path} />
                {mode === "request" && field.required && <Marker tone="text-stop">required</Marker>}
                {mode === "response" && !field.required && <Marker tone="text-muted">optional</Marker>}
              </th>
              <td className="px-3 py-1.5 font-mono break-words text-accent-strong">{typeOf(field.schema)}</td>
              {anyLimits && <td className="px-3 py-1.5 whitespace-nowrap text-muted">{limits[i] || <span aria-hidden="true">—</span>}</td>}
              {anyMeaning && <td className="min-w-64 px-3 py-1.5 text-muted">{field.schema.description ?? <span aria-hidden="true">—</span>}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Marker({ tone, children }: { tone: string; children: string }) {
  return <span className={`ml-1.5 font-sans text-[0.7rem] ${tone}`}>{children}</span>;
}

/** `a.b.c` shown with its parent path dimmed, so nested fields read as a tree. */
function Indented({ path }: { path: string }) {
  const cut = path.lastIndexOf(".");
  if (cut < 0) return <>{path}</>;
  return (
    <>
      <span className="text-muted">{path.slice(0, cut + 1)}</span>
      {path.slice(cut + 1)}
    </>
  );
}

/** The raw JSON Schema, collapsed: for copying, or for details the table leaves out. */
export function RawSchema({ schema, label = "JSON Schema" }: { schema: JsonSchema; label?: string }) {
  const { $schema: _ignored, ...rest } = schema;
  return (
    <details className="group">
      <summary className="cursor-pointer text-xs font-medium text-accent select-none hover:text-accent-strong">{label}</summary>
      <pre className="mt-2 max-h-96 overflow-auto rounded-md border border-line bg-canvas p-3 font-mono text-[0.7rem] leading-5 text-ink">
        {JSON.stringify(rest, null, 2)}
      </pre>
    </details>
  );
}
