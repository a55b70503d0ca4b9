"use client";
// The Users section of the admin page: who can sign in to the console, with what role, and the actions on each.
import { useState } from "react";
import { EmptyState } from "@/components/ui/empty-state";
import { RelativeTime } from "@/components/ui/relative-time";
import { ACTIONS_COLUMN } from "@/components/ui/table-header";
import type { UserListItem } from "@/lib/platform/auth/admin";
import { ChangeRoleDialog } from "./change-role-dialog";
import { CreateUserDialog } from "./create-user-dialog";
import { DisableUserDialog, EnableUserDialog } from "./disable-user-dialog";
import { ResetPasswordDialog } from "./reset-password-dialog";
import { NameChip, UserStatusPill } from "./status-pills";
import { AdminTable, Cell, Notice, SectionHeader } from "./table";

const COLUMNS = ["Email", "Name", "Role", "Status", "Created", ACTIONS_COLUMN];

export interface UsersSectionProps {
  users: UserListItem[];
  /** The signed-in admin, marked "you" in the list. */
  currentEmail: string;
  minPasswordLength: number;
  /** True when the list was cut at the page's limit. */
  truncated: boolean;
  /**
   * When the server read the list: relative times count from it, so a row just written never reads "in under a minute".
   */
  now: Date;
}

export function UsersSection({ users, currentEmail, minPasswordLength, truncated, now }: UsersSectionProps) {
  const [notice, setNotice] = useState<string | null>(null);
  return (
    <section aria-labelledby="users-heading">
      <SectionHeader
        id="users-heading"
        title="Users"
        description={
          "People who sign in to this console. A viewer looks, an operator approves and reconciles, an admin also " +
          "edits contracts, users and keys."
        }
        action={<CreateUserDialog minPasswordLength={minPasswordLength} onDone={setNotice} />}
      />
      <Notice message={notice} onDismiss={() => setNotice(null)} />
      {users.length === 0 ? (
        <EmptyState title="No console users yet.">
          Users you create appear here. The first admin normally comes from OPLEDGER_ADMIN_EMAIL and
          OPLEDGER_ADMIN_PASSWORD at start-up, or from{" "}
          <code className="font-mono">npm run opledger -- create-user</code>.
        </EmptyState>
      ) : (
        <AdminTable caption="Console users" columns={COLUMNS}>
          {users.map((user) => (
            <tr
              key={user.id}
              data-testid="user-row"
              data-email={user.email}
              className={user.status === "disabled" ? "text-ink-muted" : ""}
            >
              <Cell>
                <span className="font-medium">{user.email}</span>
                {user.email === currentEmail ? <span className="ml-1.5 text-xs text-ink-subtle">(you)</span> : null}
              </Cell>
              <Cell>{user.name}</Cell>
              <Cell>
                <NameChip value={user.role} />
              </Cell>
              <Cell className="whitespace-nowrap">
                <span className="flex flex-col items-start gap-0.5">
                  <UserStatusPill status={user.status} />
                  {user.lockedUntil ? (
                    <span className="text-xs text-ink-subtle">
                      unlocks <RelativeTime value={user.lockedUntil} now={now} />
                    </span>
                  ) : null}
                </span>
              </Cell>
              <Cell className="whitespace-nowrap text-ink-muted">
                <RelativeTime value={user.createdAt} now={now} />
              </Cell>
              <Cell>
                <div className="flex justify-end gap-1.5">
                  <ChangeRoleDialog user={user} onDone={setNotice} />
                  <ResetPasswordDialog user={user} minPasswordLength={minPasswordLength} onDone={setNotice} />
                  {user.status === "disabled" ? (
                    <EnableUserDialog user={user} onDone={setNotice} />
                  ) : (
                    <DisableUserDialog user={user} onDone={setNotice} />
                  )}
                </div>
              </Cell>
            </tr>
          ))}
        </AdminTable>
      )}
      {truncated ? (
        <p className="mt-2 text-xs text-ink-subtle">Showing the first {users.length} users by email.</p>
      ) : null}
    </section>
  );
}
