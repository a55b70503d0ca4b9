"""Takes a call's steps with a blocking httpx.Client; the lease is heartbeated from a daemon thread while the tool
function runs in the caller's thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from . import outcome
from .call_spec import CallSpec, operation_path
from .context import Attempt, attempt_scope
from .errors import LedgerApiError
from .http import read_answer, request_options
from .lifecycle import run_call
from .steps import Invoke, Send, Sleep, StartLease

class ThreadLease:
    """Heartbeats one operation's lease every `every` seconds until stopped, or until the ledger says it is stale."""

    def __init__(self, client: httpx.Client, spec: CallSpec, operation_id: str, fence: int) -> None:
        self.lost: str | None = None
        self.lost_event = threading.Event()
        self._client = client
        self._spec = spec
        self._path = operation_path(operation_id, "heartbeat")
        self._fence = fence
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"opledger-lease-{operation_id}", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(self._spec.limits.heartbeat_every):
            try:
                send(self._client, Send("POST", self._path, {"fence": self._fence, "leaseMs": self._spec.limits.lease_ms}))
            except LedgerApiError as problem:
                if problem.code == "stale_fence":
                    self.lost = "stale_fence"
                    self.lost_event.set()
                    return
            except httpx.TransportError:
                pass  # The next beat tries again; the lease is long enough to miss one.

    def stop(self, release: bool) -> None:
        """Stops beating; with `release`, lets the lease run out at once so the next call need not wait for it."""
        self._stopped.set()
        self._thread.join()
        if release and not self.lost:
            try:
                send(self._client, Send("POST", self._path, {"fence": self._fence, "leaseMs": 100}))
            except (LedgerApiError, httpx.TransportError):
                pass  # Finished or taken over: there is nothing left to release.


def send(client: httpx.Client, step: Send) -> Any:
    return read_answer(client.request(**request_options(step)))


def drive(client: httpx.Client, spec: CallSpec, invoke: Callable[[Attempt], outcome.CallOutcome]) -> Any:
    """Runs one call's lifecycle to its end: the tool function's value, or the OpledgerError that settles it."""
    lifecycle = run_call(spec)
    lease: ThreadLease | None = None
    answer: Any = None
    thrown: BaseException | None = None
    try:
        while True:
            try:
                step = lifecycle.throw(thrown) if thrown is not None else lifecycle.send(answer)
            except StopIteration as done:
                if lease is not None:
                    lease.stop(release=False)
                    lease = None
                return done.value
            answer, thrown = None, None
            try:
                if isinstance(step, Send):
                    answer = send(client, step)
                elif isinstance(step, Sleep):
                    if step.interruptible and lease is not None:
                        lease.lost_event.wait(step.seconds)
                    else:
                        time.sleep(step.seconds)
                elif isinstance(step, StartLease):
                    lease = answer = ThreadLease(client, spec, step.operation_id, step.fence)
                elif isinstance(step, Invoke):
                    answer = _invoke(step, invoke, lease)
            except (LedgerApiError, httpx.TransportError) as error:
                thrown = error
    finally:
        if lease is not None:
            lease.stop(release=True)
        lifecycle.close()


def _invoke(step: Invoke, invoke: Callable[[Attempt], outcome.CallOutcome], lease: ThreadLease | None) -> Any:
    op = step.operation
    with attempt_scope(Attempt(op.id, op.idempotency_key, op.attempt)) as attempt:
        result = invoke(attempt)
    # The function cannot be stopped mid-call in a thread; its outcome is not reported once the lease was lost.
    if lease is not None and lease.lost:
        return outcome.lease_lost(result.exception)
    return result
