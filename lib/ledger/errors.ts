// Domain errors of the ledger: each carries a stable machine code and the HTTP status the API maps it to.
import type { Decision } from "@/lib/retry-gate/types";

export type LedgerErrorCode =
  | "no_contract"
  | "idempotency_key_required"
  | "idempotency_key_reused"
  | "not_found"
  | "lease_held"
  | "stale_fence"
  | "lease_expired"
  | "not_dispatched"
  | "not_unknown"
  | "not_awaiting_approval"
  | "four_eyes"
  | "person_required"
  | "approval_expired"
  | "already_approved"
  | "not_rejectable"
  | "approval_required"
  | "breaker_open"
  | "budget_spent"
  | "reconcile_required"
  | "already_finished"
  | "retry_not_due"
  | "in_flight"
  | "contract_conflict"
  | "not_replayable"
  | "replay_pending"
  | "invalid_args"
  | "too_many_matches"
  | "nothing_matches"
  | "preview_expired"
  | "already_run"
  | "job_finished"
  | "invalid_webhook"
  | "webhook_conflict"
  | "invalid_body"
  | "write_conflict"
  | "database_busy";

const STATUS: Record<LedgerErrorCode, number> = {
  no_contract: 422,
  idempotency_key_required: 400,
  idempotency_key_reused: 422,
  not_found: 404,
  lease_held: 409,
  stale_fence: 409,
  lease_expired: 409,
  not_dispatched: 409,
  not_unknown: 409,
  not_awaiting_approval: 409,
  four_eyes: 403,
  person_required: 403,
  approval_expired: 409,
  already_approved: 409,
  not_rejectable: 409,
  approval_required: 409,
  breaker_open: 409,
  budget_spent: 409,
  reconcile_required: 409,
  already_finished: 409,
  retry_not_due: 409,
  in_flight: 409,
  contract_conflict: 409,
  not_replayable: 409,
  replay_pending: 409,
  invalid_args: 422,
  too_many_matches: 422,
  nothing_matches: 422,
  /** Gone: the bulk preview existed but may no longer be run; preview again. */
  preview_expired: 410,
  already_run: 409,
  job_finished: 409,
  invalid_webhook: 422,
  webhook_conflict: 409,
  invalid_body: 400,
  write_conflict: 409,
  database_busy: 503,
};

export class LedgerError extends Error {
  override name = "LedgerError";
  readonly status: number;
  constructor(
    readonly code: LedgerErrorCode,
    message: string,
    readonly extra: { decision?: Decision; errors?: Record<string, string[]>; operationId?: string } = {},
  ) {
    super(message);
    this.status = STATUS[code];
  }
}
