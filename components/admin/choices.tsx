"use client";
// Radio group for a user's role and checkboxes for an API key's scopes, each choice with what it allows.
import { useId } from "react";
import type { ApiScope } from "@/lib/auth/api-keys";
import type { Role } from "@/lib/auth/roles";
import { FieldErrors } from "./field";

const ROLE_CHOICES: readonly { value: Role; allows: string }[] = [
  { value: "viewer", allows: "sees the ledger, queues, contracts and audit trail; changes nothing" },
  { value: "operator", allows: "also approves and rejects retries, reconciles outcomes and opens or closes breakers" },
  { value: "admin", allows: "also edits tool contracts and manages users and API keys" },
];

const SCOPE_CHOICES: readonly { value: ApiScope; allows: string }[] = [
  { value: "agent", allows: "an agent runtime: plan, claim, dispatch and report operations" },
  { value: "operator", allows: "approve, reject and reconcile through the API on a person's behalf" },
  { value: "admin", allows: "everything, including editing tool contracts" },
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

export function ScopeChoice({ errors }: { errors?: string[] | undefined }) {
  const legendId = useId();
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
            defaultChecked={choice.value === "agent"}
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
