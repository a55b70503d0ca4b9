"use client";
// The confirmations that change something about one webhook: send a test event now, or delete it. Each asks for a
// reason, kept in the audit trail.
import { useId, useState, useTransition, type FormEvent } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { FieldErrors, FieldHint, inputClass, Notice } from "@/components/ui/form-controls";
import { deleteWebhookAction, sendTestEventAction } from "@/lib/console/actions/webhook-actions";
import type { WebhookView } from "@/lib/services/notify/webhook-schema";

export type WebhookChange = "test" | "delete";

const WORDS: Record<WebhookChange, { trigger: string; title: string; confirm: string; busy: string }> = {
  test: { trigger: "Send test event…", title: "Send a test event", confirm: "Send test event", busy: "Queueing…" },
  delete: { trigger: "Delete…", title: "Delete webhook", confirm: "Delete webhook", busy: "Deleting…" },
};

export function WebhookChangeButton({
  webhook,
  change,
  onDone,
}: {
  webhook: WebhookView;
  change: WebhookChange;
  onDone: (message: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [failure, setFailure] = useState<{ message: string; errors: Record<string, string[]> } | null>(null);
  const [pending, startTransition] = useTransition();
  const id = useId();
  const words = WORDS[change];

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const given = new FormData(event.currentTarget).get("reason");
    const reason = typeof given === "string" ? given : "";
    setFailure(null);
    startTransition(async () => {
      let result: { ok: true } | { ok: false; message: string; errors?: Record<string, string[]> };
      try {
        result =
          change === "test"
            ? await sendTestEventAction({ name: webhook.name, reason })
            : await deleteWebhookAction({ name: webhook.name, expectedVersion: webhook.version, reason });
      } catch {
        setFailure({ message: "The console server could not be reached. Reload the page to check.", errors: {} });
        return;
      }
      if (!result.ok) {
        setFailure({ message: result.message, errors: result.errors ?? {} });
        return;
      }
      setOpen(false);
      onDone(
        change === "test"
          ? `A test event for ${webhook.name} is queued; its delivery appears in the log below.`
          : `Webhook ${webhook.name} was deleted; nothing more will be sent to it.`,
      );
    });
  }

  const reasonErrors = failure?.errors.reason;
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (next) setFailure(null);
        setOpen(next);
      }}
    >
      <DialogTrigger className={buttonClass(change === "delete" ? "quiet" : "secondary", "sm")}>
        {words.trigger}
        <span className="sr-only"> webhook {webhook.name}</span>
      </DialogTrigger>
      <DialogContent
        title={`${words.title} ${webhook.name}`}
        description={
          change === "test"
            ? `A webhook.test event is signed and sent to ${webhook.url} like any other, retried if it fails.`
            : `Deliveries not yet sent to ${webhook.url} are given up; the log of sent ones stays. This cannot be undone.`
        }
        busy={pending}
        closeOnOutsideClick={false}
        closeButton={false}
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-4">
          {failure && !reasonErrors ? (
            <Notice tone="error" title="Nothing was changed" alert>
              {failure.message}
            </Notice>
          ) : null}
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-reason`} className="font-medium text-ink">
              Reason
            </label>
            <textarea
              id={`${id}-reason`}
              name="reason"
              rows={2}
              maxLength={500}
              data-autofocus
              aria-invalid={reasonErrors ? true : undefined}
              aria-describedby={`${id}-reason-hint${reasonErrors ? ` ${id}-reason-error` : ""}`}
              className={inputClass(Boolean(reasonErrors))}
            />
            <FieldErrors id={`${id}-reason-error`} errors={reasonErrors} />
            <FieldHint id={`${id}-reason-hint`}>Kept in the audit trail.</FieldHint>
          </div>
          <div className="flex justify-end gap-2">
            <DialogClose disabled={pending} className={buttonClass("secondary")}>
              Cancel
            </DialogClose>
            <button
              type="submit"
              disabled={pending}
              className={buttonClass(change === "delete" ? "danger" : "primary")}
            >
              {pending ? words.busy : words.confirm}
            </button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
