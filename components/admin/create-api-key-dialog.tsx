"use client";
// "Create API key": name, scopes and, for an operator or admin key, the person it acts as; then the key itself, shown
// this once with a copy button and a warning.
import { useRef, useState, type FormEvent } from "react";
import { createApiKeyAction } from "@/lib/console/actions/admin-actions";
import type { ApiScope } from "@/lib/platform/auth/api-keys";
import { actsAsPerson, keyOwnerChoices, ownerHint, type KeyOwnerCandidate } from "@/lib/console/key-owners";
import { buttonClass } from "@/components/ui/button-styles";
import { OwnerChoice, ScopeChoice } from "./choices";
import { Dialog, DialogClose, DialogContent, DialogTrigger } from "@/components/ui/dialog";
import { DialogFooter } from "./dialog-footer";
import { Field } from "./field";
import { FormAlert } from "./form-alert";
import { formText } from "@/components/ui/form-text";
import { useAdminAction } from "./use-admin-action";

interface CreatedKey {
  name: string;
  prefix: string;
  key: string;
  /** The email of the person the key acts as; null for a key that acts as itself. */
  actsAs: string | null;
}

const DEFAULT_SCOPES: ApiScope[] = ["agent"];

export interface CreateApiKeyDialogProps {
  /** The console's users; the picker offers the active ones whose role fits the chosen scopes. */
  people: readonly KeyOwnerCandidate[];
  onDone: (message: string) => void;
}

export function CreateApiKeyDialog({ people, onDone }: CreateApiKeyDialogProps) {
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [scopes, setScopes] = useState<ApiScope[]>(DEFAULT_SCOPES);
  const [ownerId, setOwnerId] = useState("");
  const { run, pending, failure, fieldErrors, reset } = useAdminAction(createApiKeyAction);

  const needsPerson = actsAsPerson(scopes);
  const owners = keyOwnerChoices(people, scopes);
  // A person chosen for operator who is no admin is dropped when admin is ticked, not sent to be refused.
  const owner = owners.some((o) => o.id === ownerId) ? ownerId : "";

  function onOpenChange(next: boolean) {
    setOpen(next);
    if (next) return;
    reset();
    setScopes(DEFAULT_SCOPES);
    setOwnerId("");
    if (created) {
      onDone(
        `Created the API key ${created.name} ` +
          `(${created.prefix}…)${created.actsAs ? `, acting as ${created.actsAs}` : ""}. Only its prefix is kept ` +
          "for display.",
      );
    }
    // The secret leaves the browser's memory with the dialog.
    setCreated(null);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const actsAs = needsPerson ? (owners.find((o) => o.id === owner)?.email ?? null) : null;
    run({ name: formText(form, "name"), scopes, ...(needsPerson ? { ownerUserId: owner } : {}) }, (data) =>
      setCreated({ ...data, actsAs }),
    );
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger className={buttonClass("primary")}>Create API key</DialogTrigger>
      {created ? (
        <DialogContent
          wide
          title={`Copy the key for ${created.name} now`}
          description="This is the only time the key is shown. opledger keeps only a hash of it, so nobody can show it again."
        >
          <NewKey created={created} />
        </DialogContent>
      ) : (
        <DialogContent
          title="Create API key"
          description="Agent runtimes and scripts send the key as Authorization: Bearer <key>. It is shown once, right after you create it."
        >
          <form onSubmit={submit} noValidate className="flex flex-col gap-3.5">
            <FormAlert failure={failure} />
            <Field
              name="name"
              label="Name"
              autoComplete="off"
              required
              hint="Who or what uses it, e.g. billing-agent (production)."
              errors={fieldErrors.name}
            />
            <ScopeChoice value={scopes} onChange={setScopes} errors={fieldErrors.scopes} />
            {needsPerson ? (
              <OwnerChoice
                options={owners}
                value={owner}
                onChange={setOwnerId}
                hint={ownerHint(scopes)}
                errors={fieldErrors.ownerUserId}
              />
            ) : null}
            <DialogFooter pending={pending} submitLabel="Create key" pendingLabel="Creating…" />
          </form>
        </DialogContent>
      )}
    </Dialog>
  );
}

type CopyState = "idle" | "copied" | "failed";

function NewKey({ created }: { created: CreatedKey }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<CopyState>("idle");

  async function copyKey() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy("copied");
    } catch {
      // The clipboard API needs a secure context and permission; selecting the text leaves Ctrl+C to the admin.
      inputRef.current?.select();
      setCopy("failed");
    }
  }

  return (
    <div className="flex flex-col gap-3.5">
      <div
        role="note"
        className="rounded-md bg-phase-unknown-soft px-3 py-2 text-phase-unknown-ink ring-1 ring-phase-unknown/30 ring-inset"
      >
        <p className="font-medium">Store it in your secret manager before you close this dialog.</p>
        <p className="mt-0.5">
          If it is lost, revoke it and create a new one. Anyone holding it can call the API with its scopes.
        </p>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="new-api-key" className="font-medium text-ink">
          API key
        </label>
        <div className="flex gap-2">
          <input
            ref={inputRef}
            id="new-api-key"
            readOnly
            value={created.key}
            onFocus={(event) => event.currentTarget.select()}
            spellCheck={false}
            className={
              "min-w-0 flex-1 rounded-md bg-surface-sunken px-2.5 py-1.5 font-mono text-[12.5px] text-ink ring-1 " +
              "ring-line-strong ring-inset"
            }
          />
          <button type="button" onClick={() => void copyKey()} className={buttonClass("secondary")}>
            Copy
          </button>
        </div>
        <p role="status" className="min-h-4 text-xs text-ink-muted">
          {copy === "copied"
            ? "Copied to the clipboard."
            : copy === "failed"
              ? "Could not reach the clipboard; the key is selected, press Ctrl+C (⌘C)."
              : ""}
        </p>
      </div>
      <div className="flex justify-end">
        <DialogClose className={buttonClass("primary")}>I have stored the key</DialogClose>
      </div>
    </div>
  );
}
