"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { inputStyles } from "@/components/ui/input";
import { apiFetch, ApiError, asSentence, isUnauthorized } from "../api";
import { EmptyBlock, ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "../detail/states";
import { fullTime, shortTime } from "../format";
import { AccountForm } from "./account-form";
import { ConfirmDialog } from "./confirm-dialog";
import { ACCOUNTS_KEY, HISTORY_KEY, PERSON_ROLE_OPTIONS, type Account, type AccountList, type PersonRoleName, type Viewer } from "./types";

type Notice = { ok: boolean; text: string };

/** People's accounts: the list, a form that creates one, role changes, disable (with confirmation) and enable. */
export function AccountsSection({ viewer, announce }: { viewer: Viewer; announce: (message: string) => void }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: ACCOUNTS_KEY, queryFn: ({ signal }) => apiFetch<AccountList>("/api/accounts", { signal }) });
  const [disabling, setDisabling] = useState<Account | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);
  // The history shows the change too (the event stream would bring it; this does not wait for it).
  const refresh = () => Promise.all([queryClient.invalidateQueries({ queryKey: ACCOUNTS_KEY }), queryClient.invalidateQueries({ queryKey: HISTORY_KEY })]);
  const tell = (n: Notice) => {
    setNotice(n);
    announce(n.text);
  };
  const refusal = (e: unknown, what: string) =>
    e instanceof ApiError && e.status === 409
      ? `${what} — ${asSentence(e.message)}`
      : `${what}: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`;

  async function setDisabled(account: Account, disable: boolean) {
    setPending(account.id);
    try {
      await apiFetch<Account>(`/api/accounts/${encodeURIComponent(account.id)}/${disable ? "disable" : "enable"}`, { method: "POST" });
      tell({
        ok: true,
        text: disable
          ? `${account.name} (${account.email}) is disabled and signed out everywhere.`
          : `${account.name} (${account.email}) is enabled and can sign in again.`,
      });
    } catch (e) {
      tell({ ok: false, text: refusal(e, disable ? "Not disabled" : "Not enabled") });
    } finally {
      setPending(null);
      setDisabling(null);
      void refresh();
    }
  }

  async function changeRole(account: Account, role: PersonRoleName) {
    setPending(account.id);
    try {
      const updated = await apiFetch<Account>(`/api/accounts/${encodeURIComponent(account.id)}`, { method: "PATCH", body: { role } });
      // Show the saved role at once (the refetch below confirms it): until then the row would still say the old
      // role, and choosing that old role again would look like "no change".
      queryClient.setQueryData<AccountList>(
        ACCOUNTS_KEY,
        (old) => old && { ...old, accounts: old.accounts.map((a) => (a.id === updated.id ? { ...a, ...updated } : a)) },
      );
      tell({ ok: true, text: `${account.name} now has the ${role} role, from their next request on.` });
      return true;
    } catch (e) {
      tell({ ok: false, text: refusal(e, "Role not changed") });
      return false;
    } finally {
      setPending(null);
      void refresh();
    }
  }

  const accounts = query.data?.accounts ?? [];
  return (
    <section aria-labelledby="accounts-title" className="space-y-3" data-testid="accounts-section">
      <div>
        <SectionTitle id="accounts-title" count={query.data ? accounts.length : undefined}>
          Accounts
        </SectionTitle>
        <p className="mt-1 text-sm text-muted">
          People who sign in with an e-mail address and password. A role change applies on the person&apos;s next request; disabling signs them out everywhere
          at once.
        </p>
      </div>
      {notice && (
        <p
          ref={noticeRef}
          tabIndex={-1}
          role={notice.ok ? "status" : "alert"}
          data-testid="accounts-notice"
          className={notice.ok ? "rounded-md bg-ok-soft px-3 py-2 text-sm text-ok" : "rounded-md bg-danger-soft px-3 py-2 text-sm text-danger"}
        >
          {notice.text}
        </p>
      )}
      {isUnauthorized(query.error) ? (
        <SessionEndedBlock />
      ) : query.isPending ? (
        <LoadingBlock label="Loading accounts…" />
      ) : query.isError && !query.data ? (
        <ErrorBlock title="Could not load the accounts" message={asSentence((query.error as Error).message)} onRetry={() => void query.refetch()} />
      ) : accounts.length === 0 ? (
        <EmptyBlock title="No accounts yet.">Create the first one below; until then only admin API tokens open the console.</EmptyBlock>
      ) : (
        <div className="overflow-hidden rounded-card border border-line bg-surface shadow-xs">
          <div className="relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent" tabIndex={0}>
            <table className="w-full min-w-[52rem] text-left text-sm" data-testid="accounts-table">
              <caption className="sr-only">Accounts, enabled first</caption>
              <thead className="border-b border-line bg-canvas/60 text-xs font-medium whitespace-nowrap text-muted">
                <tr>
                  <th scope="col" className="px-5 py-2.5 font-medium">
                    Person
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Role
                  </th>
                  <th scope="col" className="px-3 py-2.5 text-right font-medium">
                    Sessions
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Created
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
                {accounts.map((account) => {
                  const self = viewer.kind === "person" && viewer.id === account.id;
                  return (
                    <tr
                      key={account.id}
                      data-testid="account-row"
                      data-email={account.email}
                      data-disabled={account.disabledAt ? "true" : undefined}
                      className="align-top"
                    >
                      <th scope="row" className="max-w-72 px-5 py-3 font-normal">
                        <span
                          className={account.disabledAt ? "block truncate font-medium text-muted" : "block truncate font-medium text-ink"}
                          title={account.name}
                        >
                          {account.name}
                          {self && <span className="ml-1.5 text-xs font-normal text-muted">(you)</span>}
                        </span>
                        <span className="block truncate text-xs text-muted" title={account.email}>
                          {account.email}
                        </span>
                      </th>
                      <td className="px-3 py-2">
                        <RoleCell account={account} busy={pending === account.id} onChange={(role) => changeRole(account, role)} />
                      </td>
                      <td className="px-3 py-3 text-right tabular-nums text-ink" data-testid="sessions">
                        <span className="sr-only">active sessions: </span>
                        {account.activeSessions}
                      </td>
                      <td className="px-3 py-3 whitespace-nowrap text-muted">
                        <time dateTime={account.createdAt} title={fullTime(account.createdAt)}>
                          {shortTime(account.createdAt)}
                        </time>
                      </td>
                      <td className="px-3 py-3 whitespace-nowrap">
                        {account.disabledAt ? (
                          <span className="text-xs text-muted">
                            <Badge tone="warn">Disabled</Badge>{" "}
                            <time dateTime={account.disabledAt} title={fullTime(account.disabledAt)}>
                              {shortTime(account.disabledAt)}
                            </time>
                          </span>
                        ) : (
                          <Badge tone="ok">Enabled</Badge>
                        )}
                      </td>
                      <td className="px-5 py-2 text-right whitespace-nowrap">
                        {account.disabledAt ? (
                          <Button
                            variant="secondary"
                            size="sm"
                            disabled={pending === account.id}
                            onClick={() => void setDisabled(account, false)}
                            aria-label={`Enable ${account.email}`}
                          >
                            {pending === account.id ? "Enabling…" : "Enable"}
                          </Button>
                        ) : self ? (
                          <span className="inline-block max-w-40 text-left text-xs leading-5 whitespace-normal text-muted">
                            You cannot disable your own account.
                          </span>
                        ) : (
                          <Button
                            variant="secondary"
                            size="sm"
                            disabled={pending === account.id}
                            onClick={() => setDisabling(account)}
                            aria-label={`Disable ${account.email}`}
                          >
                            Disable…
                          </Button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      )}
      <Card>
        <AccountForm
          onCreated={(a) => {
            tell({ ok: true, text: `Account created for ${a.name} (${a.email}) with the ${a.role} role. They can sign in now.` });
            void refresh();
          }}
        />
      </Card>
      <ConfirmDialog
        open={!!disabling}
        title={disabling ? `Disable ${disabling.name}?` : "Disable the account?"}
        confirmLabel="Disable account"
        pending={!!disabling && pending === disabling.id}
        onConfirm={() => disabling && void setDisabled(disabling, true)}
        onClose={() => !pending && setDisabling(null)}
      >
        <p>
          {disabling?.email} is signed out everywhere at once
          {disabling && disabling.activeSessions > 0 ? ` (${disabling.activeSessions} active ${disabling.activeSessions === 1 ? "session" : "sessions"})` : ""},
          and sign-in is refused until an admin enables the account again.
        </p>
        <p>Their tasks, decisions and history are kept.</p>
      </ConfirmDialog>
    </section>
  );
}

/** The role of one account: a select, and a Save button once it differs (arrow keys never change a role by themselves). */
function RoleCell({ account, busy, onChange }: { account: Account; busy: boolean; onChange: (role: PersonRoleName) => Promise<boolean> }) {
  const [value, setValue] = useState<PersonRoleName>(account.role);
  useEffect(() => setValue(account.role), [account.role]);
  const changed = value !== account.role;
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={`role-${account.id}`} className="sr-only">
        Role of {account.email}
      </label>
      <select
        id={`role-${account.id}`}
        value={value}
        disabled={busy}
        onChange={(e) => setValue(e.target.value as PersonRoleName)}
        className={inputStyles("h-8 w-32 py-0")}
        data-testid="role-select"
      >
        {PERSON_ROLE_OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {changed ? (
        <>
          <Button
            size="sm"
            disabled={busy}
            onClick={async () => {
              if (!(await onChange(value))) setValue(account.role);
            }}
            aria-label={`Save the role ${value} for ${account.email}`}
          >
            {busy ? "Saving…" : "Save"}
          </Button>
          <Button variant="ghost" size="sm" disabled={busy} onClick={() => setValue(account.role)}>
            Undo
          </Button>
        </>
      ) : null}
    </div>
  );
}
