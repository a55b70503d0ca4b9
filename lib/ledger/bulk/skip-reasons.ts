// Why a bulk preview leaves an operation out: one word each, and the sentence the console and the API show for it.

/** Why an operation is left out: one word each, explained in SKIP_REASONS. */
export type SkipReason =
  | "already_decided"
  | "approval_expired"
  | "four_eyes"
  | "already_approved"
  | "no_lookup"
  | "provider_id_required"
  | "not_found";

export const SKIP_REASONS: Record<SkipReason, string> = {
  already_decided: "its phase no longer allows this decision (someone decided already, or it is not waiting for it)",
  approval_expired: "its approval request expired; only a replay can go on",
  four_eyes: "it runs under a key bound to you, or you asked for its approval (four-eyes): another person must decide",
  already_approved: "you already gave your approval; the quorum needs another person",
  no_lookup: "its tool's contract has no provider lookup; reconcile it with evidence instead",
  provider_id_required: "it has no provider id: a person who says the effect happened names it (reconcile it alone)",
  not_found: "there is no such operation",
};
