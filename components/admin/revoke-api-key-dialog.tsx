"use client";
// "Revoke" an API key: irreversible, so the dialog says what stops working and asks for a reason.
import { useState, type FormEvent } from "react";
import { revokeApiKeyAction } from "@/lib/actions/admin-actions";
import type { ApiKeyListItem } from "@/lib/auth/admin";
import { buttonClass } from "./button-styles";
import { Dialog, DialogContent, DialogTrigger } from "./dialog";
import { DialogFooter } from "./dialog-footer";
import { ReasonField } from "./field";
import { FormAlert } from "./form-alert";
import { formText, useAdminAction } from "./use-admin-action";

export function RevokeApiKeyDialog({ apiKey, onDone }: { apiKey: ApiKeyListItem; onDone: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const { run, pending, failure, fieldErrors, reset } = useAdminAction(revokeApiKeyAction);

  function onOpenChange(next: boolean) {
    setOpen(next);
    if (!next) reset();
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    run({ keyId: apiKey.id, reason: formText(form, "reason") }, (data) => {
      setOpen(false);
      onDone(`Revoked the API key ${data.name} (${data.prefix}…).`);
    });
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("row")} aria-label={`Revoke ${apiKey.name}`}>
        Revoke
      </DialogTrigger>
      <DialogContent
        title={`Revoke ${apiKey.name}?`}
        description={
          <>
            Every request with the key <span className="font-mono text-ink">{apiKey.prefix}…</span> is refused with 401
            from now on, including agents that are running. This cannot be undone: a revoked key stays revoked.
          </>
        }
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
          <FormAlert failure={failure} />
          <ReasonField errors={fieldErrors.reason} />
          <DialogFooter pending={pending} submitLabel="Revoke key" pendingLabel="Revoking…" tone="danger" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
