"use client";
// "Change role" for one user; it ends their sessions, so they sign in again under the new role.
import { changeRoleAction } from "@/lib/console/actions/admin-actions";
import type { UserListItem } from "@/lib/platform/auth/admin";
import type { Role } from "@/lib/platform/auth/roles";
import { buttonClass } from "@/components/ui/button-styles";
import { RoleChoice } from "./choices";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { ReasonField } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminDialog } from "./use-admin-action";

export function ChangeRoleDialog({ user, onDone }: { user: UserListItem; onDone: (message: string) => void }) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(changeRoleAction, onDone);
  const submit = submitWith(
    (form) => ({ userId: user.id, role: formText(form, "role") as Role, reason: formText(form, "reason") }),
    (data) =>
      data.changed
        ? `${data.email} is now ${data.role}.`
        : `${data.email} already had the ${data.role} role; nothing changed.`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")} aria-label={`Change role of ${user.email}`}>
        Change role
      </DialogTrigger>
      <DialogContent
        title={`Change role of ${user.email}`}
        description={
          <>
            Currently <span className="font-mono text-ink">{user.role}</span>. Their open sessions are signed out, and
            they sign in again under the new role.
          </>
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <RoleChoice defaultValue={user.role} errors={fieldErrors.role} />
          <ReasonField required={false} errors={fieldErrors.reason} />
          <DialogFooter pending={pending} submitLabel="Change role" pendingLabel="Changing…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
