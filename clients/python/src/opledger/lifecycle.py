"""One tool call under the ledger, written once for both drivers: plan, claim, then dispatch / run / report until the
retry gate stops saying "go again" (as lib/executor/attempt-loop.ts does for TypeScript).

The lifecycle is a generator: it yields steps (steps.py) and is sent their results. It returns the tool function's
value when the effect is confirmed and raises an OpledgerError otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

import httpx

from .call_spec import CallSpec, contract_path, operation_path
from .errors import (
    AlreadyDone,
    ApprovalRequired,
    DependencyUnavailable,
    Failed,
    LedgerApiError,
    OpledgerError,
    OutcomeUnknown,
    Refused,
    Rejected,
)
from .outcome import CallOutcome
from .steps import Invoke, Lease, Send, Sleep, StartLease, Step
from .wire import GO_ACTIONS, SETTLING_ACTIONS, Decision, Operation

Lifecycle = Generator[Step, Any, Any]

#: How long to wait when the gate says "wait" but not for how long (lib/executor/backoff.ts).
DEFAULT_WAIT_MS = 1000
#: Pauses between re-sends of an outcome report that did not reach the ledger (the provider was already called).
OUTCOME_REPORT_DELAYS = (0.25, 1.0, 3.0)


def run_call(spec: CallSpec) -> Lifecycle:
    planned = Operation.from_json((yield Send("POST", "/api/v1/operations", spec.plan_body())))
    # A finished operation (the same key again), or one whose outcome must be looked up first, is answered from the
    # ledger: nothing is sent, and no lease is taken.
    if planned.decision.action in ("STOP", "RECONCILE"):
        raise (yield from settled(spec, planned))
    fence = yield from claim(spec, planned)
    lease = yield StartLease(planned.id, fence)
    return (yield from attempts(spec, planned, fence, lease))


def claim(spec: CallSpec, planned: Operation) -> Generator[Step, Any, int]:
    """Takes the run lease; while another worker holds it, waits (up to max_wait) for that worker to finish."""
    deadline = time.monotonic() + spec.limits.max_wait
    body = {"workerId": spec.worker_id, "leaseMs": spec.limits.lease_ms}
    while True:
        try:
            lease = yield Send("POST", operation_path(planned.id, "claim"), body)
            return int(lease["fence"])
        except LedgerApiError as problem:
            if problem.code in ("already_finished", "approval_expired"):
                raise (yield from settled(spec, (yield from read(planned.id)))) from None
            if problem.code != "lease_held":
                raise
        current = yield from read(planned.id)
        if current.decision.action in SETTLING_ACTIONS:
            raise (yield from settled(spec, current))
        if time.monotonic() + spec.limits.poll > deadline:
            raise Refused("lease_held", tool=spec.tool, operation_id=planned.id, decision=current.decision)
        yield Sleep(spec.limits.poll, interruptible=False)


def attempts(spec: CallSpec, planned: Operation, fence: int, lease: Lease) -> Lifecycle:
    """The dispatch / run / report loop, until the gate says something other than "go again"."""
    current = planned
    waited_ms = 0
    while True:
        if lease.lost:
            raise Refused(lease.lost, tool=spec.tool, operation_id=current.id, decision=current.decision)
        try:
            answer = yield Send("POST", operation_path(current.id, "dispatch"), {"fence": fence})
            dispatched = Operation.from_json(answer)
        except LedgerApiError as problem:
            if problem.status != 409:
                raise
            current = yield from read(current.id)
            waited_ms += yield from on_refusal(spec, problem, current, lease)
            continue

        current = dispatched
        call: CallOutcome = yield Invoke(dispatched)
        if call.lease_lost:
            log_attempt(spec, dispatched, "lease taken over, outcome not reported", waited_ms, None)
            raise Refused("stale_fence", tool=spec.tool, operation_id=current.id, decision=None) from call.exception
        try:
            current = yield from report(dispatched, call.body(fence))
        except LedgerApiError as problem:
            if problem.code not in ("stale_fence", "lease_expired"):
                raise
            log_attempt(spec, dispatched, f"{call.result}, report refused ({problem.code})", waited_ms, None)
            raise Refused(
                problem.code, tool=spec.tool, operation_id=current.id, decision=problem.decision
            ) from call.exception
        decision = current.decision
        log_attempt(spec, dispatched, call.describe(), waited_ms, decision)
        waited_ms = 0

        if decision.action == "STOP" and current.phase == "CONFIRMED" and call.result == "confirmed":
            return call.value
        if decision.action == "APPROVAL":
            current = yield from await_approval(spec, current, lease, call.exception)
            continue
        if decision.action in SETTLING_ACTIONS:
            raise (yield from settled(spec, current)) from call.exception
        wait_ms = decision.retry_after_ms or (DEFAULT_WAIT_MS if decision.action == "WAIT" else 0)
        if wait_ms > spec.limits.max_wait * 1000:
            refused = Refused("retry_not_due", tool=spec.tool, operation_id=current.id, decision=decision)
            raise refused from call.exception
        yield Sleep(wait_ms / 1000)
        waited_ms = wait_ms


def on_refusal(spec: CallSpec, problem: LedgerApiError, current: Operation, lease: Lease) -> Generator[Step, Any, int]:
    """A 409 from dispatch: waits and answers how long (the loop then dispatches again), or raises what settles it."""
    decision = problem.decision or current.decision
    if problem.code in ("retry_not_due", "breaker_open"):
        wait_ms = decision.retry_after_ms or DEFAULT_WAIT_MS
        if wait_ms <= spec.limits.max_wait * 1000:
            yield Sleep(wait_ms / 1000)
            return wait_ms
        if problem.code == "breaker_open":
            raise (yield from unavailable(spec, current, decision))
        raise Refused("retry_not_due", tool=spec.tool, operation_id=current.id, decision=decision)
    if problem.code in ("stale_fence", "lease_expired"):
        raise Refused(problem.code, tool=spec.tool, operation_id=current.id, decision=decision)
    if problem.code == "approval_required":
        yield from await_approval(spec, current, lease, None)
        return 0
    # reconcile_required, budget_spent, already_finished, and any refusal code added later: the decision says.
    if decision.action in SETTLING_ACTIONS:
        raise (yield from settled(spec, current, decision))
    raise problem


def await_approval(
    spec: CallSpec, current: Operation, lease: Lease, cause: BaseException | None
) -> Generator[Step, Any, Operation]:
    """Waits up to approval_wait for a person to decide; answers the approved operation, or raises what settles it."""
    deadline = time.monotonic() + spec.limits.approval_wait
    while current.decision.action == "APPROVAL":
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ApprovalRequired(tool=spec.tool, operation_id=current.id, decision=current.decision) from cause
        yield Sleep(min(spec.limits.poll, remaining))
        if lease.lost:
            raise Refused(lease.lost, tool=spec.tool, operation_id=current.id, decision=current.decision)
        current = yield from read(current.id)
    if current.decision.action in GO_ACTIONS:
        return current
    raise (yield from settled(spec, current)) from cause


def report(dispatched: Operation, body: dict[str, Any]) -> Generator[Step, Any, Operation]:
    """Reports the outcome, sending it again through a brief outage: without it the operation ends UNKNOWN."""
    path = operation_path(dispatched.id, "outcome")
    for sent, delay in enumerate((*OUTCOME_REPORT_DELAYS, None)):
        try:
            return Operation.from_json((yield Send("POST", path, body)))
        except LedgerApiError as problem:
            # A conflict after a re-send: the earlier report most likely landed and its answer was lost.
            if sent > 0 and problem.status == 409 and problem.code not in ("stale_fence", "lease_expired"):
                return (yield from read(dispatched.id))
            if problem.status < 500 or delay is None:
                raise
        except httpx.TransportError:
            if delay is None:
                raise
        yield Sleep(delay, interruptible=False)
    raise AssertionError("unreachable: the last delay is None")


def read(operation_id: str) -> Generator[Step, Any, Operation]:
    return Operation.from_json((yield Send("GET", operation_path(operation_id))))


def settled(spec: CallSpec, op: Operation, decision: Decision | None = None) -> Generator[Step, Any, OpledgerError]:
    """The exception that tells the caller where an operation stands that this call will not run further."""
    decision = decision or op.decision
    tool, operation_id = spec.tool, op.id
    if decision.action == "STOP":
        if op.confirmed:
            return AlreadyDone(tool=tool, operation_id=operation_id, decision=decision, provider_id=op.provider_id)
        if op.phase == "REJECTED":
            reason = op.rejection_reason or decision.reason
            return Rejected(tool=tool, operation_id=operation_id, decision=decision, reason=reason)
        if op.phase == "EXPIRED":
            return Refused("approval_expired", tool=tool, operation_id=operation_id, decision=decision)
        return Failed(tool=tool, operation_id=operation_id, decision=decision)
    if decision.action == "RECONCILE":
        return OutcomeUnknown(tool=tool, operation_id=operation_id, decision=decision)
    if decision.action == "APPROVAL":
        return ApprovalRequired(tool=tool, operation_id=operation_id, decision=decision)
    if decision.action == "UNAVAILABLE":
        return (yield from unavailable(spec, op, decision))
    code = "lease_held" if decision.action == "WAIT" else "retry_not_due"
    return Refused(code, tool=tool, operation_id=operation_id, decision=decision)


def unavailable(spec: CallSpec, op: Operation, decision: Decision) -> Generator[Step, Any, DependencyUnavailable]:
    """Names the dependency whose breaker is open, from the tool's contract (None if it cannot be read)."""
    dependency: str | None = None
    try:
        contract = yield Send("GET", contract_path(spec.tool))
        dependency = contract.get("dependency")
    except (LedgerApiError, httpx.TransportError):
        pass
    return DependencyUnavailable(tool=spec.tool, operation_id=op.id, decision=decision, dependency=dependency)


def log_attempt(spec: CallSpec, op: Operation, what: str, waited_ms: int, decision: Decision | None) -> None:
    """The one log line per attempt: what it came to, how long backoff waited before it, what the gate said."""
    gate = ""
    if decision is not None:
        after = f" in {decision.retry_after_ms} ms" if decision.retry_after_ms is not None else ""
        gate = f"; gate: {decision.action}{after} ({decision.reason})"
    spec.log.info(
        "[opledger] %s attempt %d (operation %s): %s; backoff waited %d ms%s",
        spec.tool,
        op.attempt,
        op.id,
        what,
        waited_ms,
        gate,
    )
