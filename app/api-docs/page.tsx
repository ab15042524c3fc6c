import type { Metadata } from "next";
import { Fragment, type ReactNode } from "react";
import { z } from "zod";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { cx } from "@/components/ui/cx";
import { contract, type RouteContract } from "@/lib/api/contract";
import { openApiDocument } from "@/lib/api/openapi";
import { LedgerEventFieldsSchema, LedgerEventRecordSchema } from "@/lib/api/event-schemas";
import { EventCatalogue } from "./event-catalogue";
import type { JsonSchema, OpenApiDocument, Operation, Parameter } from "./openapi-types";
import { constraintsOf, RawSchema, SchemaFields, typeOf } from "./schema-view";

export const metadata: Metadata = { title: "API docs" };

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Method = (typeof METHODS)[number];

const METHOD_TONE: Record<Method, BadgeTone> = { get: "ok", post: "accent", put: "warn", patch: "warn", delete: "danger" };

const REASON: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted", "204": "No Content" };

interface Entry {
  method: Method;
  path: string;
  operation: Operation;
}

/** Sections of the page, in reading order; an operation that fits none lands in "Other". */
const GROUPS: { title: string; intro: string; match: (e: Entry) => boolean }[] = [
  {
    title: "Tasks",
    intro: "A task is one user request handled by an agent; its work items are the children it schedules. Stop records the cancellation boundary first.",
    match: (e) => e.path.startsWith("/api/tasks") && !isStream(e),
  },
  {
    title: "Live events",
    intro:
      "Server-sent events of the ledger. Each message is `event: ledger`, its `id:` is the ledger sequence, and its data is one ledger event (below). Reconnect with Last-Event-ID to resume exactly after the last event seen.",
    match: isStream,
  },
  {
    title: "Workers",
    intro:
      "The lease protocol: claim a queued item, heartbeat (which tells you when to stop), pass the checkpoint right before a commitment, record the submission, report the outcome.",
    match: (e) => e.path.startsWith("/api/workers") || e.path.startsWith("/api/work-items"),
  },
  {
    title: "Review",
    intro: "What a person must decide — compensations to approve, uncertain outcomes and orphaned resources to resolve — and the decisions themselves.",
    match: (e) => e.path.startsWith("/api/review-items"),
  },
  {
    title: "MCP gateway",
    intro:
      "MCP clients reach the tools of the configured MCP servers through Stopline: each tools/call is a work item, stopped and reported like every child; resources, prompts and completions are relayed as they are. The bodies are MCP JSON-RPC messages (the MCP specification defines them).",
    match: (e) => e.path === "/api/mcp",
  },
  {
    title: "Metrics",
    intro: "",
    match: (e) => e.path.startsWith("/api/metrics"),
  },
  {
    title: "Access",
    intro: "API tokens for agents and workers, and the console's cookie session.",
    match: (e) => e.path.startsWith("/api/tokens") || e.path.startsWith("/api/session"),
  },
  { title: "Other", intro: "", match: () => true },
];

function isStream(e: Entry) {
  return Object.values(e.operation.responses).some((r) => r.content?.["text/event-stream"]);
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-");

export default function ApiDocsPage() {
  const doc = openApiDocument() as unknown as OpenApiDocument;
  const entries: Entry[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
    METHODS.flatMap((method) => (methods[method] ? [{ method, path, operation: methods[method] }] : [])),
  );
  const groups = GROUPS.map((g) => ({ ...g, entries: [] as Entry[] }));
  for (const entry of entries) groups.find((g) => g.match(entry))!.entries.push(entry);
  const shown = groups.filter((g) => g.entries.length);
  const errorStatuses = collectErrors(entries);
  const eventFields = z.toJSONSchema(LedgerEventFieldsSchema, { io: "output", unrepresentable: "any" }) as JsonSchema;
  const eventSchema = z.toJSONSchema(LedgerEventRecordSchema, { io: "output", unrepresentable: "any" }) as JsonSchema;

  return (
    <div className="lg:grid lg:grid-cols-[16rem_minmax(0,1fr)] lg:gap-10">
      <nav aria-label="Endpoints" className="hidden lg:sticky lg:top-6 lg:block lg:max-h-[calc(100vh-3rem)] lg:self-start lg:overflow-y-auto">
        <p className="mb-3 text-xs font-semibold tracking-wide text-muted uppercase">Endpoints</p>
        <ul className="space-y-5 text-sm">
          {shown.map((group) => (
            <li key={group.title}>
              <a href={`#${slug(group.title)}`} className="font-medium text-ink hover:text-accent">
                {group.title}
              </a>
              <ul className="mt-1.5 space-y-0.5">
                {group.entries.map((e) => (
                  <li key={e.operation.operationId}>
                    <a
                      href={`#${e.operation.operationId}`}
                      className="flex items-baseline gap-2 rounded px-1.5 py-0.5 text-xs text-muted hover:bg-surface hover:text-ink"
                    >
                      <span className="w-11 shrink-0 font-mono text-[0.65rem] font-semibold uppercase">{e.method}</span>
                      <span className="min-w-0 font-mono">{breakableAtSlashes(e.path.replace(/^\/api/, ""))}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
          <li>
            <a href="#errors" className="font-medium text-ink hover:text-accent">
              Errors
            </a>
          </li>
        </ul>
      </nav>

      <div className="min-w-0 space-y-12">
        <header className="space-y-4">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone="accent">OpenAPI {doc.openapi}</Badge>
            <Badge>v{doc.info.version}</Badge>
          </div>
          <h1 className="text-3xl font-semibold tracking-tight text-ink">{doc.info.title}</h1>
          {doc.info.description && <p className="max-w-3xl text-base leading-7 text-muted">{doc.info.description}</p>}
          <p className="text-sm">
            <a href="/api/openapi.json" className="font-medium text-accent underline-offset-4 hover:underline">
              Download the OpenAPI document (/api/openapi.json)
            </a>
            <span className="text-muted"> — for code generators and API clients.</span>
          </p>
          <Card className="space-y-2 text-sm leading-6 text-muted">
            <h2 className="text-base font-semibold text-ink">Authentication</h2>
            <p>
              Send <Code>Authorization: Bearer &lt;token&gt;</Code>. Each token has one role — <Code>admin</Code>, <Code>agent</Code> or <Code>worker</Code> —
              and each endpoint below lists the roles it accepts. An admin creates tokens with <Code>POST /api/tokens</Code> (or{" "}
              <Code>npm run token:create</Code>); a token is shown once.
            </p>
            <p>
              The console signs in with an admin token and keeps a session for it in an httpOnly cookie (the cookie never holds the token; revoking the token
              ends the session); writes authenticated by that cookie are accepted only from the same origin. Too many failed sign-ins answer 429 with{" "}
              <Code>Retry-After</Code>, as does a database that is unavailable (503).
            </p>
          </Card>
        </header>

        {shown.map((group) => (
          <section key={group.title} aria-labelledby={slug(group.title)} className="space-y-4">
            <div className="space-y-1">
              <h2 id={slug(group.title)} className="scroll-mt-6 text-xl font-semibold tracking-tight text-ink">
                {group.title}
              </h2>
              {group.intro && <p className="max-w-3xl text-sm leading-6 text-muted">{withCode(group.intro)}</p>}
            </div>
            {group.title === "Live events" && (
              <Card className="space-y-3">
                <h3 className="text-sm font-semibold text-ink">Every ledger event</h3>
                <SchemaFields schema={eventFields} mode="response" />
                <h3 className="text-sm font-semibold text-ink">The data of each event type</h3>
                <p className="text-xs text-muted">
                  An event&apos;s <code className="font-mono">data</code> has the shape its <code className="font-mono">type</code> names, or is null. Objects
                  may carry fields added later.
                </p>
                <EventCatalogue />
                <RawSchema schema={eventSchema} />
              </Card>
            )}
            <div className="space-y-4">
              {group.entries.map((entry) => (
                <OperationCard key={entry.operation.operationId} entry={entry} />
              ))}
            </div>
          </section>
        ))}

        <section aria-labelledby="errors" className="space-y-4">
          <div className="space-y-1">
            <h2 id="errors" className="scroll-mt-6 text-xl font-semibold tracking-tight text-ink">
              Errors
            </h2>
            <p className="max-w-3xl text-sm leading-6 text-muted">
              Every error has the same shape: <Code>{"{ error: { code, message, details?, issues? } }"}</Code>. The message says what was wrong in words;{" "}
              <Code>issues</Code> names each invalid field.
            </p>
          </div>
          <Card className="space-y-4">
            <dl className="divide-y divide-line text-sm">
              {errorStatuses.map(([status, description]) => (
                <div key={status} id={`error-${status}`} className="flex scroll-mt-6 gap-4 py-2">
                  <dt className="w-10 shrink-0 font-mono font-semibold text-danger">{status}</dt>
                  <dd className="text-muted">{description}</dd>
                </div>
              ))}
            </dl>
            {errorStatuses.length > 0 && <ErrorSchema entries={entries} />}
          </Card>
        </section>
      </div>
    </div>
  );
}

function OperationCard({ entry }: { entry: Entry }) {
  const { method, path, operation } = entry;
  const auth = (contract as Record<string, RouteContract>)[operation.operationId]?.auth;
  const body = operation.requestBody?.content?.["application/json"]?.schema;
  const [success, errors] = partition(Object.entries(operation.responses), ([status]) => status.startsWith("2"));

  return (
    <article
      id={operation.operationId}
      aria-labelledby={`${operation.operationId}-title`}
      className="scroll-mt-6 rounded-card border border-line bg-surface shadow-xs"
    >
      <header className="space-y-2 border-b border-line px-5 py-4">
        <h3 id={`${operation.operationId}-title`} className="flex flex-wrap items-center gap-3">
          <Badge tone={METHOD_TONE[method]} className="w-16 justify-center font-mono font-semibold uppercase">
            {method}
          </Badge>
          <code className="font-mono text-sm font-semibold break-all text-ink">{path}</code>
        </h3>
        {operation.summary && <p className="text-sm leading-6 text-ink">{operation.summary}</p>}
        <p className="flex flex-wrap items-center gap-1.5 text-xs text-muted">
          {auth === "public" || (!auth && operation.security?.length === 0) ? (
            <span>Public — no token needed</span>
          ) : auth ? (
            <>
              <span>Roles:</span>
              {auth.map((role) => (
                <Badge key={role}>{role}</Badge>
              ))}
            </>
          ) : (
            operation.description && <span>{operation.description}</span>
          )}
        </p>
      </header>

      <div className="space-y-5 px-5 py-4">
        {operation.parameters?.length ? (
          <Block title="Parameters">
            <ParameterTable parameters={operation.parameters} />
          </Block>
        ) : null}

        {body && (
          <Block title={`Request body${operation.requestBody?.required ? "" : " (optional)"} · application/json`}>
            <SchemaFields schema={body} />
            <RawSchema schema={body} />
          </Block>
        )}

        <Block title="Responses">
          <ul className="space-y-3">
            {success.map(([status, response]) => {
              const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
              return (
                <li key={status} className="space-y-2">
                  <p className="flex flex-wrap items-baseline gap-2 text-sm">
                    <span className="font-mono font-semibold text-ok">{status}</span>
                    <span className="text-ink">{REASON[status] ?? ""}</span>
                    {response.description !== "OK" && <span className="text-muted">— {response.description}</span>}
                    {mediaType && <span className="font-mono text-xs text-muted">{mediaType}</span>}
                  </p>
                  {media?.schema && mediaType === "application/json" && (
                    <details className="rounded-md border border-line">
                      <summary className="cursor-pointer px-3 py-2 text-xs font-medium text-accent select-none hover:text-accent-strong">
                        Response fields
                      </summary>
                      <div className="space-y-3 border-t border-line p-3">
                        <SchemaFields schema={media.schema} mode="response" />
                        <RawSchema schema={media.schema} />
                      </div>
                    </details>
                  )}
                </li>
              );
            })}
          </ul>
          {errors.length > 0 && (
            <p className="mt-3 flex flex-wrap items-center gap-1.5 text-xs text-muted">
              <span>Errors:</span>
              {errors.map(([status, response]) => (
                <a
                  key={status}
                  href={`#error-${status}`}
                  title={response.description}
                  className="rounded border border-line px-1.5 py-0.5 font-mono text-danger hover:bg-danger-soft"
                >
                  {status}
                </a>
              ))}
            </p>
          )}
        </Block>
      </div>
    </article>
  );
}

function ParameterTable({ parameters }: { parameters: Parameter[] }) {
  return (
    <div
      className="relative overflow-x-auto rounded-md border border-line focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
      tabIndex={0}
    >
      <table className="w-full text-left text-xs">
        <thead className="bg-canvas text-muted">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">
              Name
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              In
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Type
            </th>
            <th scope="col" className="px-3 py-2 font-medium">
              Limits
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {parameters.map((p) => (
            <tr key={`${p.in}:${p.name}`} className="align-top">
              <th scope="row" className="px-3 py-1.5 font-mono font-normal whitespace-nowrap text-ink">
                {p.name}
                {p.required && <span className="ml-1.5 font-sans text-[0.7rem] text-stop">required</span>}
              </th>
              <td className="px-3 py-1.5 text-muted">{p.in}</td>
              <td className="px-3 py-1.5 font-mono text-accent-strong">{typeOf(p.schema)}</td>
              <td className="px-3 py-1.5 text-muted">
                {[p.description, ...constraintsOf(p.schema)].filter(Boolean).join(", ") || <span aria-hidden="true">—</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ErrorSchema({ entries }: { entries: Entry[] }) {
  const schema = entries
    .flatMap((e) => Object.entries(e.operation.responses))
    .find(([status, r]) => !status.startsWith("2") && r.content?.["application/json"]?.schema)?.[1].content?.["application/json"]?.schema;
  if (!schema) return null;
  return (
    <div className="space-y-3 border-t border-line pt-4">
      <SchemaFields schema={schema} mode="response" />
      <RawSchema schema={schema} />
    </div>
  );
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="space-y-2">
      <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">{title}</h4>
      {children}
    </div>
  );
}

function Code({ children }: { children: ReactNode }) {
  return <code className={cx("rounded bg-canvas px-1 py-0.5 font-mono text-[0.8em] text-ink")}>{children}</code>;
}

/** A path that wraps only after a "/" when the sidebar is narrow. */
function breakableAtSlashes(path: string) {
  return path.split("/").map((part, i) => (
    <Fragment key={i}>
      {i > 0 && (
        <>
          /<wbr />
        </>
      )}
      {part}
    </Fragment>
  ));
}

/** `code` spans in the group intros. */
function withCode(text: string) {
  return text.split(/(`[^`]+`)/).map((part, i) => (part.startsWith("`") ? <Code key={i}>{part.slice(1, -1)}</Code> : part));
}

/** Each error status once, with the description the document gives it. */
function collectErrors(entries: Entry[]): [string, string][] {
  const seen = new Map<string, string>();
  for (const e of entries) {
    for (const [status, r] of Object.entries(e.operation.responses)) {
      if (!status.startsWith("2") && !seen.has(status)) seen.set(status, r.description);
    }
  }
  return [...seen.entries()].sort(([a], [b]) => a.localeCompare(b));
}

function partition<T>(items: T[], predicate: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (predicate(item) ? yes : no).push(item);
  return [yes, no];
}
