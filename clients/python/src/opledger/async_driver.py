"""Takes a call's steps with an httpx.AsyncClient; the lease is heartbeated by a task while the tool function runs as
another, which is cancelled when the lease is lost or the call's timeout passes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
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


class TaskLease(LeaseState):
    """Heartbeats one operation's lease from a task until stopped, or until the ledger says it is stale."""

    def __init__(self, client: httpx.AsyncClient, spec: CallSpec, operation_id: str, fence: int) -> None:
        super().__init__(spec, operation_id, fence)
        self.lost_event = asyncio.Event()
        self._client = client
        self._task = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await send(self._client, self.beat())
            except LedgerApiError as problem:
                if self.lost_by(problem):
                    self.lost_event.set()
                    return
            except httpx.TransportError:
                pass  # The next beat tries again; the lease is long enough to miss one.

    async def stop(self, release: bool) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if release and not self.lost:
            with contextlib.suppress(LedgerApiError, httpx.TransportError):
                await send(self._client, self.release())


async def send(client: httpx.AsyncClient, step: Send) -> Any:
    return read_answer(await client.request(**request_options(step)))


async def drive(
    client: httpx.AsyncClient, spec: CallSpec, invoke: Callable[[], Awaitable[outcome.CallOutcome]]
) -> Any:
    """Runs one call's lifecycle to its end: the tool function's value, or the OpledgerError that settles it."""
    steps = Steps(run_call(spec))
    lease: TaskLease | None = None
    confirmed = False
    try:
        for step in steps:
            try:
                if isinstance(step, Send):
                    steps.answer(await send(client, step))
                elif isinstance(step, Sleep):
                    await _sleep(step, lease)
                elif isinstance(step, StartLease):
                    lease = TaskLease(client, spec, step.operation_id, step.fence)
                    steps.answer(lease)
                elif isinstance(step, Invoke):
                    steps.answer(await _invoke(step, invoke, lease, spec.limits.timeout))
            except (LedgerApiError, httpx.TransportError) as error:
                steps.fail(error)
        confirmed = True
        return steps.value
    finally:
        if lease is not None:
            await lease.stop(release=not confirmed)
        steps.close()


async def _sleep(step: Sleep, lease: TaskLease | None) -> None:
    if not step.interruptible or lease is None:
        await asyncio.sleep(step.seconds)
        return
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(lease.lost_event.wait(), step.seconds)


async def _invoke(
    step: Invoke,
    invoke: Callable[[], Awaitable[outcome.CallOutcome]],
    lease: TaskLease | None,
    timeout: float | None,
) -> outcome.CallOutcome:
    op = step.operation
    # The task copies the context here, so the function sees its attempt through current_attempt().
    with attempt_scope(Attempt(op.id, op.idempotency_key, op.attempt)):
        call = asyncio.ensure_future(invoke())
    waits: set[asyncio.Future[Any]] = {call}
    lost = asyncio.ensure_future(lease.lost_event.wait()) if lease is not None else None
    if lost is not None:
        waits.add(lost)
    try:
        done, _ = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if call in done:
            return call.result()
        if lost is not None and lost in done:
            return outcome.lease_lost()
        return outcome.timed_out(timeout or 0)
    finally:
        for pending in waits:
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending
