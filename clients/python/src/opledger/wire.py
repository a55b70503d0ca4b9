"""The ledger API's objects as this client reads them: the gate's decision and the operation (docs/python.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

#: Decisions after which this call does not go again by itself.
SETTLING_ACTIONS = frozenset({"STOP", "RECONCILE", "APPROVAL", "UNAVAILABLE"})
#: Decisions that let the next attempt go, now or after `retry_after_ms`.
GO_ACTIONS = frozenset({"DISPATCH", "RETRY", "RETRY_SAME_KEY"})


@dataclass(frozen=True)
class Decision:
    """The retry gate's decision: what happens next and why, in a sentence a person can read."""

    action: str
    reason: str
    #: Milliseconds until the action may be taken; None when it may be taken now.
    retry_after_ms: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        retry = data.get("retryAfterMs")
        return cls(
            action=str(data["action"]),
            reason=str(data.get("reason", "")),
            retry_after_ms=int(retry) if isinstance(retry, (int, float)) else None,
        )


@dataclass(frozen=True)
class Operation:
    """The fields of an operation this client acts on; `raw` is the whole object as the ledger sent it."""

    id: str
    tool: str
    phase: str
    attempt: int
    idempotency_key: str
    decision: Decision
    provider_id: str | None = None
    rejection_reason: str | None = None
    evidence: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Operation:
        return cls(
            id=str(data["id"]),
            tool=str(data["tool"]),
            phase=str(data["phase"]),
            attempt=int(data["attempt"]),
            idempotency_key=str(data["idempotencyKey"]),
            decision=Decision.from_json(data["decision"]),
            provider_id=data.get("providerId"),
            rejection_reason=data.get("rejectionReason"),
            evidence=data.get("evidence"),
            raw=data,
        )

    @property
    def confirmed(self) -> bool:
        """The effect happened: the provider confirmed it, or a reconciliation proved it applied."""
        return self.phase == "CONFIRMED" or (self.phase == "RECONCILED" and self.evidence == "applied")
