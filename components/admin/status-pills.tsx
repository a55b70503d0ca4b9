// Pills for a user's status and role and an API key's state: a text label always, colour only repeating it.
import { StatusPill } from "@/components/ui/status-pill";
import type { UserStatus } from "@/lib/platform/auth/admin";
import type { ApiScope } from "@/lib/platform/auth/api-keys";
import type { Role } from "@/lib/platform/auth/roles";
import { assertNever } from "@/lib/retry-gate/exhaustive";

const NEUTRAL = { toneClassName: "bg-surface-sunken text-ink-muted ring-line-strong", dotClassName: "bg-ink-subtle" };
// Locked needs attention (amber, like an outcome that is not known); disabled and revoked have ended (red, like
// failed).
const ATTENTION = {
  toneClassName: "bg-phase-unknown-soft text-phase-unknown-ink ring-phase-unknown/30",
  dotClassName: "bg-phase-unknown",
};
const ENDED = {
  toneClassName: "bg-phase-failed-soft text-phase-failed-ink ring-phase-failed/30",
  dotClassName: "bg-phase-failed",
};

export function UserStatusPill({ status }: { status: UserStatus }) {
  switch (status) {
    case "active":
      return <StatusPill label="Active" {...NEUTRAL} data={{ "data-status": status }} />;
    case "locked":
      return <StatusPill label="Locked" {...ATTENTION} data={{ "data-status": status }} />;
    case "disabled":
      return <StatusPill label="Disabled" {...ENDED} data={{ "data-status": status }} />;
    default:
      return assertNever(status, "user status");
  }
}

export function ApiKeyStatePill({ revoked }: { revoked: boolean }) {
  return revoked ? (
    <StatusPill label="Revoked" {...ENDED} data={{ "data-status": "revoked" }} />
  ) : (
    <StatusPill label="Active" {...NEUTRAL} data={{ "data-status": "active" }} />
  );
}

/** A role or scope name, in monospace as typed in the CLI and the API. */
export function NameChip({ value }: { value: Role | ApiScope }) {
  return (
    <span className="inline-flex rounded-sm bg-surface-sunken px-1.5 py-px font-mono text-xs text-ink ring-1 ring-line ring-inset">
      {value}
    </span>
  );
}
