"""Takes a call's steps with a blocking httpx.Client; the lease is heartbeated from a daemon thread while the tool
function runs in the caller's thread."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from . import outcome
from .call_spec import CallSpec
from .context import Attempt, attempt_scope
from .errors import LedgerApiError
from .http import read_answer, request_options
from .lease_state import LeaseState
from .lifecycle import run_call
from .steps import Invoke, Send, Sleep, StartLease, Steps

class ThreadLease(LeaseState):
    """Heartbeats one operation's lease from a daemon thread until stopped, or until the ledger says it is stale."""

    def __init__(self, client: httpx.Client, spec: CallSpec, operation_id: str, fence: int) -> None:
        super().__init__(spec, operation_id, fence)
        self.lost_event = threading.Event()
        self._client = client
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"opledger-lease-{operation_id}", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(self.every):
            try:
                send(self._client, self.beat())
            except LedgerApiError as problem:
                if self.lost_by(problem):
                    self.lost_event.set()
                    return
            except httpx.TransportError:
                pass  # The next beat tries again; the lease is long enough to miss one.

    def stop(self, release: bool) -> None:
        self._stopped.set()
        self._thread.join()
        if release and not self.lost:
            with contextlib.suppress(LedgerApiError, httpx.TransportError):
                send(self._client, self.release())


def send(client: httpx.Client, step: Send) -> Any:
    return read_answer(client.request(**request_options(step)))


def drive(client: httpx.Client, spec: CallSpec, invoke: Callable[[], outcome.CallOutcome]) -> Any:
    """Runs one call's lifecycle to its end: the tool function's value, or the OpledgerError that settles it."""
    steps = Steps(run_call(spec))
    lease: ThreadLease | None = None
    confirmed = False
    try:
        for step in steps:
            try:
                if isinstance(step, Send):
                    steps.answer(send(client, step))
                elif isinstance(step, Sleep):
                    if step.interruptible and lease is not None:
                        lease.lost_event.wait(step.seconds)
                    else:
                        time.sleep(step.seconds)
                elif isinstance(step, StartLease):
                    lease = ThreadLease(client, spec, step.operation_id, step.fence)
                    steps.answer(lease)
                elif isinstance(step, Invoke):
                    steps.answer(_invoke(step, invoke, lease))
            except (LedgerApiError, httpx.TransportError) as error:
                steps.fail(error)
        confirmed = True
        return steps.value
    finally:
        if lease is not None:
            lease.stop(release=not confirmed)
        steps.close()


def _invoke(step: Invoke, invoke: Callable[[], outcome.CallOutcome], lease: ThreadLease | None) -> Any:
    op = step.operation
    with attempt_scope(Attempt(op.id, op.idempotency_key, op.attempt)):
        result = invoke()
    # The function cannot be stopped mid-call in a thread; its outcome is not reported once the lease was lost.
    if lease is not None and lease.lost:
        return outcome.lease_lost(result.exception)
    return result
