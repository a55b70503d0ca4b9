// Refusals of a bulk action that the ledger's error codes do not name: each with a stable code and its HTTP status.

export type BulkErrorCode = "too_many_matches" | "nothing_matches" | "preview_expired" | "already_run" | "job_finished";

const STATUS: Record<BulkErrorCode, number> = {
  too_many_matches: 422,
  nothing_matches: 422,
  /** Gone: the preview existed but may no longer be run; preview again. */
  preview_expired: 410,
  already_run: 409,
  job_finished: 409,
};

export class BulkError extends Error {
  override name = "BulkError";
  readonly status: number;
  constructor(
    readonly code: BulkErrorCode,
    message: string,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}
