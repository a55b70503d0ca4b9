"use client";
// The API keys section of the admin page: keys agents and scripts use, newest first, each with whom it acts as, with
// create and revoke.
import { useState } from "react";
import { EmptyState } from "@/components/ui/empty-state";
import { RelativeTime } from "@/components/ui/relative-time";
import { ACTIONS_COLUMN } from "@/components/ui/table-header";
import type { ApiKeyListItem, UserListItem } from "@/lib/platform/auth/admin";
import { actsAsPerson } from "@/lib/console/key-owners";
import { CreateApiKeyDialog } from "./create-api-key-dialog";
import { RevokeApiKeyDialog } from "./revoke-api-key-dialog";
import { ApiKeyStatePill, NameChip } from "./status-pills";
import { AdminTable, Cell, Notice, SectionHeader } from "./table";

const COLUMNS = ["Name", "Prefix", "Scopes", "Acts as", "Created by", "Created", "Last used", "Status", ACTIONS_COLUMN];

export interface ApiKeysSectionProps {
  apiKeys: ApiKeyListItem[];
  /**
   * The console's users (the list the Users section shows): the people an operator or admin key may act as, and
   * whether a key's person is disabled.
   */
  users?: readonly UserListItem[];
  /** True when the list was cut at the page's limit. */
  truncated: boolean;
  /** When the server read the list; relative times count from it. */
  now: Date;
}

export function ApiKeysSection({ apiKeys, users = [], truncated, now }: ApiKeysSectionProps) {
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section aria-labelledby="api-keys-heading">
      <SectionHeader
        id="api-keys-heading"
        title="API keys"
        description={
          "Keys that agent runtimes and scripts send as a Bearer token. An operator or admin key acts as the " +
          "person it belongs to. Only a prefix is kept for display; the key itself is shown once."
        }
        action={<CreateApiKeyDialog people={users} onDone={setNotice} />}
      />
      <Notice message={notice} onDismiss={() => setNotice(null)} />
      {apiKeys.length === 0 ? (
        <EmptyState title="No API keys yet.">
          An agent runtime needs a key with the agent scope before it can plan operations through the ledger API. Keys
          you create here, or with <code className="font-mono">npm run opledger -- create-api-key</code>, appear in this
          list with when they were last used.
        </EmptyState>
      ) : (
        <AdminTable caption="API keys" columns={COLUMNS}>
          {apiKeys.map((apiKey) => {
            const revoked = apiKey.revokedAt !== null;
            return (
              <tr
                key={apiKey.id}
                data-testid="api-key-row"
                data-prefix={apiKey.prefix}
                className={revoked ? "text-ink-muted" : ""}
              >
                <Cell>
                  <span className="font-medium">{apiKey.name}</span>
                </Cell>
                <Cell>
                  <span translate="no" className="font-mono text-[12.5px] whitespace-nowrap">
                    {apiKey.prefix}…
                  </span>
                </Cell>
                <Cell>
                  <span className="flex flex-wrap gap-1">
                    {apiKey.scopes.map((scope) => (
                      <NameChip key={scope} value={scope} />
                    ))}
                  </span>
                </Cell>
                <Cell>
                  <ActsAs apiKey={apiKey} users={users} />
                </Cell>
                <Cell className="text-ink-muted">{apiKey.createdBy}</Cell>
                <Cell className="whitespace-nowrap text-ink-muted">
                  <RelativeTime value={apiKey.createdAt} now={now} />
                </Cell>
                <Cell className="whitespace-nowrap text-ink-muted">
                  {apiKey.lastUsedAt ? (
                    <RelativeTime value={apiKey.lastUsedAt} now={now} />
                  ) : (
                    <span className="text-ink-subtle">never</span>
                  )}
                </Cell>
                <Cell className="whitespace-nowrap">
                  <span className="flex flex-col items-start gap-0.5">
                    <ApiKeyStatePill revoked={revoked} />
                    {apiKey.revokedAt ? (
                      <span className="text-xs text-ink-subtle">
                        <RelativeTime value={apiKey.revokedAt} now={now} />
                      </span>
                    ) : null}
                  </span>
                </Cell>
                <Cell>
                  <div className="flex justify-end">
                    {revoked ? null : <RevokeApiKeyDialog apiKey={apiKey} onDone={setNotice} />}
                  </div>
                </Cell>
              </tr>
            );
          })}
        </AdminTable>
      )}
      {truncated ? <p className="mt-2 text-xs text-ink-subtle">Showing the newest {apiKeys.length} keys.</p> : null}
    </section>
  );
}

/**
 * Whom the key acts as (docs/authority.md#principals): its person, the bootstrap principal, or an agent identity of its
 * own. A key whose person is disabled is refused like a revoked one, so that is said too.
 */
function ActsAs({ apiKey, users }: { apiKey: ApiKeyListItem; users: readonly UserListItem[] }) {
  if (apiKey.bootstrap) {
    return (
      <span className="flex flex-col" data-acts-as="bootstrap">
        <span className="font-mono text-[12.5px] text-ink">bootstrap</span>
        <span className="text-xs text-ink-subtle">its own principal, no person</span>
      </span>
    );
  }
  if (apiKey.ownerUserId) {
    const disabled = users.find((u) => u.id === apiKey.ownerUserId)?.status === "disabled";
    return (
      <span className="flex flex-col" data-acts-as="person">
        {apiKey.ownerEmail ? (
          <span className="text-ink">{apiKey.ownerEmail}</span>
        ) : (
          <span className="text-ink-subtle" title={apiKey.ownerUserId}>
            a user who no longer exists
          </span>
        )}
        {disabled ? (
          <span className="text-xs font-medium text-phase-failed-ink">person disabled: the key is refused</span>
        ) : null}
      </span>
    );
  }
  if (actsAsPerson(apiKey.scopes)) {
    // Written before keys were bound to a person and never bound since: it cannot open the human gate.
    return (
      <span className="flex flex-col" data-acts-as="nobody">
        <span className="text-ink-muted">no person</span>
        <span className="text-xs text-ink-subtle">cannot approve; replace it with a key bound to a person</span>
      </span>
    );
  }
  return (
    <span className="text-ink-muted" data-acts-as="agent">
      agent identity
    </span>
  );
}
