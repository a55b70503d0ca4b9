"use client";
// "Reset password" for one user: sets a new password and lifts a lockout.
import { resetPasswordAction } from "@/lib/console/actions/admin-actions";
import type { UserListItem } from "@/lib/platform/auth/admin";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { Field } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminDialog } from "./use-admin-action";

export function ResetPasswordDialog({
  user,
  minPasswordLength,
  onDone,
}: {
  user: UserListItem;
  minPasswordLength: number;
  onDone: (message: string) => void;
}) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(resetPasswordAction, onDone);
  const submit = submitWith(
    (form) => ({ userId: user.id, password: formText(form, "password") }),
    (data) => `Set a new password for ${data.email}. Give it to them through a private channel.`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")} aria-label={`Reset password of ${user.email}`}>
        Reset password
      </DialogTrigger>
      <DialogContent
        title={`Reset password of ${user.email}`}
        description={
          "Their old password stops working at once, their open sessions are signed out, and a lockout from " +
          "failed sign-ins is lifted."
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <Field
            name="password"
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            minLength={minPasswordLength}
            hint={`At least ${minPasswordLength} characters.`}
            errors={fieldErrors.password}
          />
          <DialogFooter pending={pending} submitLabel="Set new password" pendingLabel="Saving…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
