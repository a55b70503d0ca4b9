"use client";
// Radio group for a user's role, checkboxes for an API key's scopes, each choice with what it allows, and the person an
// operator or admin key acts as.
import { useId } from "react";
import type { ApiScope } from "@/lib/platform/auth/api-keys";
import type { Role } from "@/lib/platform/auth/roles";
import { inputClass } from "@/components/ui/form-controls";
import { FieldErrors } from "./field";

const ROLE_CHOICES: readonly { value: Role; allows: string }[] = [
  { value: "viewer", allows: "sees the ledger, queues, contracts and audit trail; changes nothing" },
  { value: "operator", allows: "also approves and rejects retries, reconciles outcomes and opens or closes breakers" },
  { value: "admin", allows: "also edits tool contracts and manages users and API keys" },
];

const SCOPE_CHOICES: readonly { value: ApiScope; allows: string }[] = [
  { value: "agent", allows: "an agent runtime: plan, claim, dispatch and report its own operations" },
  { value: "operator", allows: "approve, reject and reconcile through the API, as the person it belongs to" },
  { value: "admin", allows: "also edit tool contracts, as the admin it belongs to" },
  { value: "metrics", allows: "scrape /api/v1/metrics, nothing else" },
];

export function RoleChoice({ defaultValue, errors }: { defaultValue?: Role; errors?: string[] | undefined }) {
  const legendId = useId();
  return (
    <fieldset aria-describedby={errors?.length ? `${legendId}-error` : undefined} className="flex flex-col gap-1.5">
      <legend id={legendId} className="mb-1 font-medium text-ink">
        Role
      </legend>
      {ROLE_CHOICES.map((choice) => (
        <label key={choice.value} className="flex items-start gap-2">
          <input
            type="radio"
            name="role"
            value={choice.value}
            defaultChecked={choice.value === (defaultValue ?? "viewer")}
            className="mt-0.5 accent-ink"
          />
          <span>
            <span className="font-mono text-ink">{choice.value}</span>
            <span className="text-ink-muted"> — {choice.allows}</span>
          </span>
        </label>
      ))}
      <FieldErrors id={`${legendId}-error`} errors={errors ?? []} />
    </fieldset>
  );
}

/** The scopes, as a controlled set: whether the key acts as a person depends on them. */
export function ScopeChoice({
  value,
  onChange,
  errors,
}: {
  value: readonly ApiScope[];
  onChange: (scopes: ApiScope[]) => void;
  errors?: string[] | undefined;
}) {
  const legendId = useId();
  function toggle(scope: ApiScope, on: boolean) {
    // Kept in the order of the choices, so the list reads the same whatever order they were ticked in.
    onChange(SCOPE_CHOICES.map((c) => c.value).filter((s) => (s === scope ? on : value.includes(s))));
  }
  return (
    <fieldset aria-describedby={errors?.length ? `${legendId}-error` : undefined} className="flex flex-col gap-1.5">
      <legend id={legendId} className="mb-1 font-medium text-ink">
        Scopes
      </legend>
      {SCOPE_CHOICES.map((choice) => (
        <label key={choice.value} className="flex items-start gap-2">
          <input
            type="checkbox"
            name="scopes"
            value={choice.value}
            checked={value.includes(choice.value)}
            onChange={(event) => toggle(choice.value, event.currentTarget.checked)}
            className="mt-0.5 accent-ink"
          />
          <span>
            <span className="font-mono text-ink">{choice.value}</span>
            <span className="text-ink-muted"> — {choice.allows}</span>
          </span>
        </label>
      ))}
      <FieldErrors id={`${legendId}-error`} errors={errors ?? []} />
    </fieldset>
  );
}

export interface OwnerOption {
  id: string;
  email: string;
  name: string;
  role: Role;
}

/**
 * "Acts as": the person an operator or admin key is bound to, from the people whose role fits its scopes. The server
 * checks the same rule and its message lands here.
 */
export function OwnerChoice({
  options,
  value,
  onChange,
  hint,
  errors,
}: {
  options: readonly OwnerOption[];
  value: string;
  onChange: (userId: string) => void;
  hint: string;
  errors?: string[] | undefined;
}) {
  const id = useId();
  const invalid = Boolean(errors?.length);
  const describedBy = [`${id}-hint`, invalid ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="font-medium text-ink">
        Acts as
      </label>
      <select
        id={id}
        name="ownerUserId"
        required
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        disabled={options.length === 0}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        className={inputClass(invalid, "disabled:text-ink-subtle")}
      >
        <option value="">{options.length === 0 ? "Nobody fits these scopes" : "Choose a person…"}</option>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.email} ({option.role})
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="text-xs text-ink-subtle">
        {options.length === 0
          ? "No active user has the role these scopes need. Create or promote the person under Users first."
          : hint}
      </p>
      {invalid ? <FieldErrors id={`${id}-error`} errors={errors ?? []} /> : null}
    </div>
  );
}
