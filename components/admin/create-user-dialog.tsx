"use client";
// "Create user": email, name, role and an initial password the admin hands over out of band.
import { createUserAction } from "@/lib/console/actions/admin-actions";
import type { Role } from "@/lib/platform/auth/roles";
import { buttonClass } from "@/components/ui/button-styles";
import { RoleChoice } from "./choices";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { Field } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminDialog } from "./use-admin-action";

export function CreateUserDialog({
  minPasswordLength,
  onDone,
}: {
  minPasswordLength: number;
  onDone: (message: string) => void;
}) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(createUserAction, onDone);
  const submit = submitWith(
    (form) => ({
      email: formText(form, "email"),
      name: formText(form, "name"),
      role: formText(form, "role") as Role,
      password: formText(form, "password"),
    }),
    (data, input) =>
      `Created ${data.email} as ${input.role}. Give them the initial password through a private channel.`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("primary")}>Create user</DialogTrigger>
      <DialogContent
        title="Create user"
        description={
          "The person signs in with this email and password. Give them the password through a private channel; " +
          "they cannot change it themselves yet, an admin can reset it."
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <Field name="email" label="Email" type="email" autoComplete="off" required errors={fieldErrors.email} />
          <Field name="name" label="Name" autoComplete="off" required errors={fieldErrors.name} />
          <RoleChoice errors={fieldErrors.role} />
          <Field
            name="password"
            label="Initial password"
            type="password"
            autoComplete="new-password"
            required
            minLength={minPasswordLength}
            hint={`At least ${minPasswordLength} characters; a passphrase of several words works well.`}
            errors={fieldErrors.password}
          />
          <DialogFooter pending={pending} submitLabel="Create user" pendingLabel="Creating…" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
