"""The steps one tool call asks its driver to take: the lifecycle (lifecycle.py) is written once, as a generator that
yields these, and a sync driver (sync_driver.py) and an async one (async_driver.py) take them."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol

from .wire import Operation


@dataclass(frozen=True)
class Send:
    """One request to the ledger API. The driver sends back the JSON body of a 2xx answer, or throws the
    LedgerApiError of an error answer (or the httpx.TransportError) into the lifecycle."""

    method: str
    path: str
    body: dict[str, Any] | None = None


@dataclass(frozen=True)
class Sleep:
    """A pause; an interruptible one ends early when the lease is lost (the lifecycle then looks at why)."""

    seconds: float
    interruptible: bool = True


@dataclass(frozen=True)
class StartLease:
    """Heartbeat the lease from here until the call ends; the driver sends back the Lease it keeps."""

    operation_id: str
    fence: int


@dataclass(frozen=True)
class Invoke:
    """Run the tool function once for this dispatched attempt; the driver sends back a CallOutcome."""

    operation: Operation


Step = Send | Sleep | StartLease | Invoke


class Lease(Protocol):
    """What the lifecycle reads of the lease its driver keeps."""

    @property
    def lost(self) -> str | None:
        """`stale_fence` once a heartbeat was refused because another worker took the operation over."""
        ...


class Steps:
    """Iterates a lifecycle's steps; the driver answers each one (`answer`, or `fail` with the error to throw in) before
    asking for the next. `value` is what the lifecycle returned."""

    def __init__(self, lifecycle: Generator[Step, Any, Any]) -> None:
        self._lifecycle = lifecycle
        self._answer: Any = None
        self._error: BaseException | None = None
        self.value: Any = None

    def __iter__(self) -> Steps:
        return self

    def __next__(self) -> Step:
        answer, error = self._answer, self._error
        self._answer, self._error = None, None
        try:
            return self._lifecycle.throw(error) if error is not None else self._lifecycle.send(answer)
        except StopIteration as done:
            self.value = done.value
            raise StopIteration from None

    def answer(self, value: Any) -> None:
        self._answer = value

    def fail(self, error: BaseException) -> None:
        self._error = error

    def close(self) -> None:
        self._lifecycle.close()
