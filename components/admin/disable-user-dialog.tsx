"use client";
// "Disable" (destructive: says what happens and asks for a reason) and "Enable" for one user.
import { disableUserAction, enableUserAction } from "@/lib/console/actions/admin-actions";
import type { UserListItem } from "@/lib/platform/auth/admin";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { ReasonField } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminDialog } from "./use-admin-action";

export function DisableUserDialog({ user, onDone }: { user: UserListItem; onDone: (message: string) => void }) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(disableUserAction, onDone);
  const submit = submitWith(
    (form) => ({ userId: user.id, reason: formText(form, "reason") }),
    (data) => `Disabled ${data.email}.`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")} aria-label={`Disable ${user.email}`}>
        Disable
      </DialogTrigger>
      <DialogContent
        title={`Disable ${user.email}?`}
        description={
          <>
            They are signed out at their next page or action and cannot sign in, by password or single sign-on, until an
            admin enables them again. API keys bound to them are refused too, until they are enabled. Their name stays
            on everything they did in the audit trail.
          </>
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <ReasonField errors={fieldErrors.reason} />
          <DialogFooter pending={pending} submitLabel="Disable user" pendingLabel="Disabling…" tone="danger" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

export function EnableUserDialog({ user, onDone }: { user: UserListItem; onDone: (message: string) => void }) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(enableUserAction, onDone);
  const submit = submitWith(
    (form) => ({ userId: user.id, reason: formText(form, "reason") }),
    (data) => `Enabled ${data.email}; they can sign in again.`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")} aria-label={`Enable ${user.email}`}>
        Enable
      </DialogTrigger>
      <DialogContent
        title={`Enable ${user.email}?`}
        description={
          <>
            They can sign in again with their current password and the{" "}
            <span className="font-mono text-ink">{user.role}</span> role.
          </>
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <ReasonField required={false} errors={fieldErrors.reason} />
          <DialogFooter pending={pending} submitLabel="Enable user" pendingLabel="Enabling…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
