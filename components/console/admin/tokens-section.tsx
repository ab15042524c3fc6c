"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { apiFetch, ApiError, asSentence, isUnauthorized } from "../api";
import { EmptyBlock, ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "../detail/states";
import { fullTime, shortTime } from "../format";
import { ConfirmDialog } from "./confirm-dialog";
import { NewTokenBox } from "./new-token-box";
import { TokenForm } from "./token-form";
import { HISTORY_KEY, TOKENS_KEY, type ApiToken, type ApiTokenList, type CreatedToken } from "./types";

const ROLE_TONE = { admin: "danger", agent: "accent", worker: "neutral" } as const;

/** API tokens: the list (prefix, role, last use, revoked), a form that creates one (shown once), revoke. */
export function TokensSection({ announce }: { announce: (message: string) => void }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: TOKENS_KEY, queryFn: ({ signal }) => apiFetch<ApiTokenList>("/api/tokens", { signal }) });
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);
  const [pending, setPending] = useState(false);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  // The history shows the change too (the event stream would bring it; this does not wait for it).
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: TOKENS_KEY }), queryClient.invalidateQueries({ queryKey: HISTORY_KEY })]);
  // After a revoke its button is gone: focus moves to the outcome instead of falling back to the page.
  const noticeRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);

  const onCreated = (c: CreatedToken) => {
    setCreated(c);
    setNotice(null);
    announce(`Token “${c.record.name}” created with the ${c.record.role} role. Copy it now: it will not be shown again.`);
    void refresh();
  };

  async function revoke(token: ApiToken) {
    setPending(true);
    try {
      await apiFetch<ApiToken>(`/api/tokens/${encodeURIComponent(token.id)}`, { method: "DELETE" });
      const text = `Token “${token.name}” revoked. It no longer authenticates.`;
      setNotice({ ok: true, text });
      announce(text);
      if (created?.record.id === token.id) setCreated(null);
    } catch (e) {
      const text =
        e instanceof ApiError && e.status === 409 ? `Not revoked — ${asSentence(e.message)}` : `The token was not revoked: ${asSentence((e as Error).message)}`;
      setNotice({ ok: false, text });
      announce(text);
    } finally {
      setPending(false);
      setRevoking(null);
      void refresh();
    }
  }

  const tokens = query.data?.tokens ?? [];
  // The bootstrap token from the server's environment is a live admin token too: counted, and never "No API tokens".
  const bootstrapActive = query.data?.bootstrap?.active === true;
  return (
    <section aria-labelledby="tokens-title" className="space-y-3" data-testid="tokens-section">
      <div>
        <SectionTitle id="tokens-title" count={query.data ? tokens.length + (bootstrapActive ? 1 : 0) : undefined}>
          API tokens
        </SectionTitle>
        <p className="mt-1 text-sm text-muted">
          Agent runtimes and workers authenticate with a bearer token. Stopline stores only a hash of each; the token itself is shown once, when it is created.
        </p>
      </div>
      {notice && (
        <p
          ref={noticeRef}
          tabIndex={-1}
          role={notice.ok ? "status" : "alert"}
          data-testid="tokens-notice"
          className={notice.ok ? "rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" : "rounded-md bg-danger-soft px-3 py-2 text-sm text-danger"}
        >
          {notice.text}
        </p>
      )}
      {bootstrapActive && <BootstrapNotice />}
      {isUnauthorized(query.error) ? (
        <SessionEndedBlock />
      ) : query.isPending ? (
        <LoadingBlock label="Loading API tokens…" />
      ) : query.isError && !query.data ? (
        <ErrorBlock title="Could not load the API tokens" message={asSentence((query.error as Error).message)} onRetry={() => void query.refetch()} />
      ) : tokens.length === 0 && bootstrapActive ? null : tokens.length === 0 ? (
        <EmptyBlock title="No API tokens yet.">Create one below for each agent runtime or worker; revoke it when that client is retired.</EmptyBlock>
      ) : (
        <div className="overflow-hidden rounded-card border border-line bg-surface shadow-xs">
          <div className="relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent" tabIndex={0}>
            <table className="w-full min-w-[48rem] text-left text-sm" data-testid="tokens-table">
              <caption className="sr-only">API tokens, active first</caption>
              <thead className="border-b border-line bg-canvas/60 text-xs font-medium whitespace-nowrap text-muted">
                <tr>
                  <th scope="col" className="px-5 py-2.5 font-medium">
                    Name
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Role
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Token
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Created
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Last used
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-5 py-2.5 text-right font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {tokens.map((token) => (
                  <tr
                    key={token.id}
                    data-testid="token-row"
                    data-token-id={token.id}
                    data-revoked={token.revokedAt ? "true" : undefined}
                    className={token.revokedAt ? "text-muted" : undefined}
                  >
                    <th scope="row" className="max-w-64 px-5 py-3 font-medium text-ink">
                      <span className="block truncate" title={token.name}>
                        {token.name}
                      </span>
                    </th>
                    <td className="px-3 py-3">
                      <Badge tone={token.revokedAt ? "neutral" : ROLE_TONE[token.role]}>{token.role}</Badge>
                    </td>
                    <td className="px-3 py-3 font-mono text-xs whitespace-nowrap text-ink">{token.prefix}…</td>
                    <td className="px-3 py-3 whitespace-nowrap text-muted">
                      <Time iso={token.createdAt} />
                    </td>
                    <td className="px-3 py-3 whitespace-nowrap text-muted">{token.lastUsedAt ? <Time iso={token.lastUsedAt} /> : "never"}</td>
                    <td className="px-3 py-3 whitespace-nowrap">
                      {token.revokedAt ? (
                        <span className="text-xs">
                          <Badge tone="neutral">Revoked</Badge> <Time iso={token.revokedAt} />
                        </span>
                      ) : (
                        <Badge tone="ok">Active</Badge>
                      )}
                    </td>
                    <td className="px-5 py-2 text-right">
                      {!token.revokedAt && (
                        <Button variant="secondary" size="sm" onClick={() => setRevoking(token)} aria-label={`Revoke the token ${token.name}`}>
                          Revoke…
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
      {created && (
        <NewTokenBox
          created={created}
          announce={announce}
          onDone={() => {
            setCreated(null);
            announce("The new token is no longer shown.");
          }}
        />
      )}
      <Card>
        <TokenForm onCreated={onCreated} />
      </Card>
      <ConfirmDialog
        open={!!revoking}
        title={revoking ? `Revoke the token “${revoking.name}”?` : "Revoke the token?"}
        confirmLabel="Revoke token"
        pending={pending}
        onConfirm={() => revoking && void revoke(revoking)}
        onClose={() => !pending && setRevoking(null)}
      >
        <p>
          Every request with it is refused from now on (401). A {revoking?.role} client that still uses{" "}
          <code className="font-mono text-ink">{revoking?.prefix}…</code> stops working.
        </p>
        <p>This cannot be undone: to let that client in again, create a new token.</p>
      </ConfirmDialog>
    </section>
  );
}

function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={fullTime(iso)}>
      {shortTime(iso)}
    </time>
  );
}

/** The bootstrap token: live, admin, set in the server's environment — so it is neither stored here nor revocable here. */
function BootstrapNotice() {
  return (
    <p data-testid="bootstrap-token" className="rounded-md border border-warn/40 bg-warn-soft/60 px-3 py-2 text-sm text-ink">
      <strong className="font-semibold">The bootstrap token is active</strong> (STOPLINE_BOOTSTRAP_TOKEN, an admin token set in the server&apos;s environment).
      It is not stored here and cannot be revoked here: create your own tokens below, then remove it from the environment.
    </p>
  );
}
