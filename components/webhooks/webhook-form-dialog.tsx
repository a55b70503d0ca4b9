"use client";
// The admin's editor of a webhook: name (when new), URL, the secret's variable name, format and events, with each
// field's own message from the server and the version it edits (someone else's save in between is shown, never
// overwritten).
import { useId, useState, useTransition, type FormEvent } from "react";
import { buttonClass } from "@/components/ui/button-styles";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { FieldErrors, FieldHint, inputClass, Notice } from "@/components/ui/form-controls";
import { saveWebhookAction } from "@/lib/console/actions/webhook-actions";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "@/lib/services/notify/event-types";
import type { WebhookView } from "@/lib/services/notify/webhook-schema";
import { EVENT_HELP } from "./webhooks-api";

interface Failure {
  message: string;
  errors: Record<string, string[]>;
}

/** A text field's value; a file (never sent by this form) counts as empty. */
function textOf(form: FormData, name: string, fallback: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : fallback;
}

const FORMAT_LABELS: Record<(typeof WEBHOOK_FORMATS)[number], string> = {
  json: "Standard Webhooks JSON event",
  slack: "Slack message (text and link)",
};

export function WebhookFormButton({
  webhook,
  onDone,
}: {
  /** null: a new webhook. */
  webhook: WebhookView | null;
  onDone: (message: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [pending, startTransition] = useTransition();
  const id = useId();

  function openChange(next: boolean) {
    if (next) setFailure(null);
    setOpen(next);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const input = {
      name: webhook?.name ?? textOf(form, "name", "").trim(),
      url: textOf(form, "url", ""),
      secret: textOf(form, "secret", ""),
      format: textOf(form, "format", "json") as (typeof WEBHOOK_FORMATS)[number],
      events: form.getAll("events").map(String),
      reason: textOf(form, "reason", ""),
      ...(webhook ? { expectedVersion: webhook.version } : {}),
    };
    setFailure(null);
    startTransition(async () => {
      let result: Awaited<ReturnType<typeof saveWebhookAction>>;
      try {
        result = await saveWebhookAction(input);
      } catch {
        setFailure({
          message:
            "The console server could not be reached, so this may not have been saved. Reload the page to check.",
          errors: {},
        });
        return;
      }
      if (!result.ok) {
        setFailure({ message: result.message, errors: result.errors ?? {} });
        return;
      }
      setOpen(false);
      onDone(
        result.data.created
          ? `Webhook ${input.name} was created.`
          : result.data.changed
            ? `Webhook ${input.name} is now version ${result.data.webhook.version}.`
            : `Webhook ${input.name} already had these settings; nothing was changed.`,
      );
    });
  }

  const errors = failure?.errors ?? {};
  const anyFieldError = Object.keys(errors).length > 0;
  const field = (name: string) => ({
    id: `${id}-${name}`,
    name,
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": `${id}-${name}-hint${errors[name] ? ` ${id}-${name}-error` : ""}`,
  });

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger className={buttonClass(webhook ? "quiet" : "primary", webhook ? "sm" : "md")}>
        {webhook ? (
          <>
            Edit…<span className="sr-only"> webhook {webhook.name}</span>
          </>
        ) : (
          "New webhook…"
        )}
      </DialogTrigger>
      <DialogContent
        title={webhook ? `Edit webhook ${webhook.name}` : "New webhook"}
        description={
          webhook
            ? `Saved as version ${webhook.version + 1}, with your name and reason in the audit trail. Deliveries ` +
              "not yet sent go out with the new settings."
            : "Events are signed as Standard Webhooks with the secret held by the variable you name, and retried " +
              "until the receiver answers 2xx or the retry gate gives up."
        }
        busy={pending}
        wide
        closeOnOutsideClick={false}
        closeButton={false}
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-label="Webhook">
          {failure && (!anyFieldError || errors.name) ? (
            <Notice tone="error" title="Nothing was saved" alert>
              {failure.message}
            </Notice>
          ) : null}
          {failure && anyFieldError ? (
            <p role="alert" className="text-sm font-medium text-phase-failed-ink">
              Nothing was saved: fix the fields marked below.
            </p>
          ) : null}
          {webhook ? null : (
            <div className="flex flex-col gap-1">
              <label htmlFor={`${id}-name`} className="font-medium text-ink">
                Name
              </label>
              <input
                {...field("name")}
                data-autofocus
                autoComplete="off"
                className={inputClass(Boolean(errors.name), "font-mono")}
              />
              <FieldErrors id={`${id}-name-error`} errors={errors.name} />
              <FieldHint id={`${id}-name-hint`}>Letters, digits and . _ - (for example oncall-pager).</FieldHint>
            </div>
          )}
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-url`} className="font-medium text-ink">
              URL
            </label>
            <input
              {...field("url")}
              type="url"
              defaultValue={webhook?.url ?? ""}
              placeholder="https://hooks.example.com/opledger"
              className={inputClass(Boolean(errors.url), "font-mono")}
            />
            <FieldErrors id={`${id}-url-error`} errors={errors.url} />
            <FieldHint id={`${id}-url-hint`}>
              An http(s) address the outbound rules allow: public addresses only, unless the server allows private ones.
            </FieldHint>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <div className="flex flex-col gap-1">
              <label htmlFor={`${id}-secret`} className="font-medium text-ink">
                Signing secret variable
              </label>
              <input
                {...field("secret")}
                defaultValue={webhook?.secret ?? ""}
                placeholder="OPLEDGER_SECRET_ONCALL_HOOK"
                autoComplete="off"
                className={inputClass(Boolean(errors.secret), "font-mono")}
              />
              <FieldErrors id={`${id}-secret-error`} errors={errors.secret} />
              <FieldHint id={`${id}-secret-hint`}>
                The name of a server variable holding a whsec_ secret. The secret itself is never stored or shown.
              </FieldHint>
            </div>
            <div className="flex flex-col gap-1">
              <label htmlFor={`${id}-format`} className="font-medium text-ink">
                Format
              </label>
              <select
                {...field("format")}
                defaultValue={webhook?.format ?? "json"}
                className={inputClass(Boolean(errors.format))}
              >
                {WEBHOOK_FORMATS.map((f) => (
                  <option key={f} value={f}>
                    {FORMAT_LABELS[f]}
                  </option>
                ))}
              </select>
              <FieldErrors id={`${id}-format-error`} errors={errors.format} />
              <FieldHint id={`${id}-format-hint`}>Slack: use a Slack incoming webhook’s URL.</FieldHint>
            </div>
          </div>
          <fieldset
            className="flex flex-col gap-1"
            aria-describedby={`${id}-events-hint${errors.events ? ` ${id}-events-error` : ""}`}
            aria-invalid={errors.events ? true : undefined}
          >
            <legend className="mb-1 font-medium text-ink">Events</legend>
            <div className="grid gap-x-4 gap-y-1.5 sm:grid-cols-2">
              {WEBHOOK_EVENT_TYPES.map((type) => (
                <label key={type} className="flex items-start gap-2">
                  <input
                    type="checkbox"
                    name="events"
                    value={type}
                    defaultChecked={webhook ? webhook.events.includes(type) : true}
                    className="mt-0.5"
                  />
                  <span>
                    <span className="font-mono text-[12.5px] text-ink">{type}</span>
                    <span className="block text-xs text-ink-subtle">{EVENT_HELP[type]}</span>
                  </span>
                </label>
              ))}
            </div>
            <FieldErrors id={`${id}-events-error`} errors={errors.events} />
            <FieldHint id={`${id}-events-hint`}>
              The events a person must act on; this webhook is told only these.
            </FieldHint>
          </fieldset>
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-reason`} className="font-medium text-ink">
              Reason
            </label>
            <textarea {...field("reason")} rows={2} maxLength={500} className={inputClass(Boolean(errors.reason))} />
            <FieldErrors id={`${id}-reason-error`} errors={errors.reason} />
            <FieldHint id={`${id}-reason-hint`}>Kept in the audit trail, e.g. “page the payments on-call”.</FieldHint>
          </div>
          <div className="flex justify-end gap-2">
            <DialogClose disabled={pending} className={buttonClass("secondary")}>
              Cancel
            </DialogClose>
            <button type="submit" disabled={pending} className={buttonClass("primary")}>
              {pending ? "Saving…" : webhook ? "Save webhook" : "Create webhook"}
            </button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
