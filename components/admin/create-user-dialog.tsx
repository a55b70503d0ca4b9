"use client";
// "Create user": email, name, role and an initial password the admin hands over out of band.
import { useState, type FormEvent } from "react";
import { createUserAction } from "@/lib/actions/admin-actions";
import type { Role } from "@/lib/auth/roles";
import { buttonClass } from "./button-styles";
import { RoleChoice } from "./choices";
import { Dialog, DialogContent, DialogTrigger } from "./dialog";
import { DialogFooter } from "./dialog-footer";
import { Field } from "./field";
import { FormAlert } from "./form-alert";
import { formText, useAdminAction } from "./use-admin-action";

export function CreateUserDialog({ minPasswordLength, onDone }: { minPasswordLength: number; onDone: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const { run, pending, failure, fieldErrors, reset } = useAdminAction(createUserAction);

  function onOpenChange(next: boolean) {
    setOpen(next);
    if (!next) reset();
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = {
      email: formText(form, "email"),
      name: formText(form, "name"),
      role: formText(form, "role") as Role,
      password: formText(form, "password"),
    };
    run(input, (data) => {
      setOpen(false);
      onDone(`Created ${data.email} as ${input.role}. Give them the initial password through a private channel.`);
    });
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("primary")}>Create user</DialogTrigger>
      <DialogContent
        title="Create user"
        description="The person signs in with this email and password. Give them the password through a private channel; they cannot change it themselves yet, an admin can reset it."
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
