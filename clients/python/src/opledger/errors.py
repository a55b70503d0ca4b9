"""What a decorated tool call raises when the gate did not let it simply succeed.

Each message is written for a model (and the person reading its transcript): what happened, what not to do, what to
do instead, and the operation id. The machine-readable parts are attributes: `code`, `operation_id`, `decision`.
"""

from __future__ import annotations

from .wire import Decision


def _seconds(ms: int | None) -> str:
    return f"{max(1, -(-(ms or 0) // 1000))} s"


class OpledgerError(Exception):
    """Base of every exception this package raises about a tool call."""

    #: A stable machine code: approval_required, outcome_unknown, dependency_unavailable, rejected, failed, ...
    code: str = "opledger_error"

    def __init__(self, message: str, *, tool: str, operation_id: str | None, decision: Decision | None) -> None:
        super().__init__(message)
        self.message = message
        self.tool = tool
        self.operation_id = operation_id
        #: The gate's decision when the call stopped: its action, its reason, and when to ask again.
        self.decision = decision

    def _op(self) -> str:
        return f" (operation {self.operation_id})" if self.operation_id else ""


class ApprovalRequired(OpledgerError):
    """The next attempt waits for a person's approval (NON_RETRYABLE retry, spent budget, approval: required)."""

    code = "approval_required"

    def __init__(self, *, tool: str, operation_id: str, decision: Decision | None) -> None:
        super().__init__(
            f"opledger: {tool} waits for a person's approval (operation {operation_id}). Do not call it again with "
            "other arguments to get around it. Call it again with the same arguments after approval, or tell the "
            "user it is waiting.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class OutcomeUnknown(OpledgerError):
    """The request may have reached the provider and had its effect; a lookup or a person must settle it."""

    code = "outcome_unknown"

    def __init__(self, *, tool: str, operation_id: str, decision: Decision | None) -> None:
        super().__init__(
            f"opledger: the outcome of {tool} is unknown: the request may have reached the provider and had its "
            f"effect (operation {operation_id}). Do not call it again: a person will look it up. Tell the user it "
            "is being checked.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class DependencyUnavailable(OpledgerError):
    """The dependency's circuit breaker is open: nothing was sent."""

    code = "dependency_unavailable"

    def __init__(
        self, *, tool: str, operation_id: str, decision: Decision | None, dependency: str | None
    ) -> None:
        #: The dependency's name as the tool's contract gives it (None when the contract names none).
        self.dependency = dependency
        service = f"The service {dependency} behind {tool}" if dependency else f"The service behind {tool}"
        retry = decision.retry_after_ms if decision else None
        super().__init__(
            f"opledger: {service} is unavailable for about {_seconds(retry)} (its circuit is open); nothing was "
            f"sent (operation {operation_id}). Try another approach or tell the user.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class Rejected(OpledgerError):
    """A person rejected the operation; `reason` is theirs."""

    code = "rejected"

    def __init__(self, *, tool: str, operation_id: str, decision: Decision | None, reason: str) -> None:
        self.reason = reason
        super().__init__(
            f'opledger: a person rejected this call of {tool} (operation {operation_id}): "{reason}". Do not call '
            "it again; tell the user.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class Failed(OpledgerError):
    """The call failed and the gate will not retry it (a fatal error, or the retry budget spent without a person).

    The function's last exception, when there was one, is the `__cause__`.
    """

    code = "failed"

    def __init__(self, *, tool: str, operation_id: str, decision: Decision | None) -> None:
        why = f" {decision.reason}" if decision else ""
        super().__init__(
            f"opledger: this call of {tool} failed and will not be retried (operation {operation_id}).{why} Do not "
            "call it again with the same arguments; change them if the error says how, or tell the user.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class AlreadyDone(OpledgerError):
    """An earlier call with the same key already had the effect: nothing was sent again.

    The earlier call's return value is not kept by the ledger; `provider_id` is what the provider called the effect.
    """

    code = "already_done"

    def __init__(self, *, tool: str, operation_id: str, decision: Decision | None, provider_id: str | None) -> None:
        self.provider_id = provider_id
        ref = f", provider id {provider_id}" if provider_id else ""
        super().__init__(
            f"opledger: {tool} already did this earlier (operation {operation_id}{ref}); nothing was sent again. "
            "Do not call it again: it would not run a second time. Go on as if it succeeded.",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


#: Why the ledger refused this worker, in the words a model reads.
_REFUSALS = {
    "lease_held": "this call is running in another worker{op}. Do not start it again; call it again with the same "
    "arguments in a few seconds to get its result.",
    "stale_fence": "another worker took this call over while it ran{op}, so its outcome was refused (fencing). Do "
    "not call it again: the other worker's outcome counts.",
    "lease_expired": "this worker's lease ran out while the call ran{op}, so its outcome was refused. Do not call it "
    "again: a person will look it up.",
    "retry_not_due": "this call failed and may be tried again in {wait}{op}. Call it again after that with the same "
    "arguments.",
    "approval_expired": "nobody approved this call in time, so its approval request expired{op}. Do not call it "
    "again; tell the user that a person can replay it from the console.",
}


class Refused(OpledgerError):
    """The ledger refused this worker the next step: `code` is lease_held, stale_fence, lease_expired, retry_not_due
    or approval_expired."""

    def __init__(self, code: str, *, tool: str, operation_id: str, decision: Decision | None) -> None:
        self.code = code
        template = _REFUSALS.get(code, "the ledger refused this call ({code}){op}.")
        retry = decision.retry_after_ms if decision else None
        text = template.format(op=f" (operation {operation_id})", wait=_seconds(retry), code=code)
        super().__init__(f"opledger: {tool}: {text}", tool=tool, operation_id=operation_id, decision=decision)


class LedgerApiError(OpledgerError):
    """An answer of the ledger API this client cannot act on (401, 403, 422 no_contract, idempotency_key_reused, ...),
    from the problem document the ledger sent."""

    def __init__(
        self,
        *,
        status: int,
        code: str,
        detail: str,
        tool: str = "",
        operation_id: str | None = None,
        decision: Decision | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.detail = detail
        super().__init__(
            f"opledger: the ledger answered {status} {code}: {detail}",
            tool=tool,
            operation_id=operation_id,
            decision=decision,
        )


class ProviderError(Exception):
    """Raise this from a tool function for a definite error answer of the provider: nothing was applied.

    The gate classifies it by `http_status` (or `kind`) as it classifies the executor's error answers. Any other
    exception, except `httpx.HTTPStatusError`, is reported as an unknown outcome: the request may have landed.
    """

    def __init__(
        self,
        message: str,
        *,
        http_status: int | None = None,
        kind: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.kind = kind
        #: The provider's Retry-After, in seconds.
        self.retry_after = retry_after
