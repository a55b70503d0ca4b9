"use client";
// "Revoke" an API key: irreversible, so the dialog says what stops working and asks for a reason.
import { revokeApiKeyAction } from "@/lib/console/actions/admin-actions";
import type { ApiKeyListItem } from "@/lib/platform/auth/admin";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { ReasonField } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminDialog } from "./use-admin-action";

export function RevokeApiKeyDialog({ apiKey, onDone }: { apiKey: ApiKeyListItem; onDone: (message: string) => void }) {
  const { open, onOpenChange, pending, failure, fieldErrors, submitWith } = useAdminDialog(revokeApiKeyAction, onDone);
  const submit = submitWith(
    (form) => ({ keyId: apiKey.id, reason: formText(form, "reason") }),
    (data) => `Revoked the API key ${data.name} (${data.prefix}…).`,
  );

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("quiet", "sm")} aria-label={`Revoke ${apiKey.name}`}>
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
