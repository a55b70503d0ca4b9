"""What a call reads from its context: the run and agent a `with ledger.run(...)` block set, and, inside the tool
function, the attempt being made. Context variables, so threads and asyncio tasks each see their own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class RunScope:
    run_id: str
    agent_id: str | None = None


@dataclass(frozen=True)
class Attempt:
    """The attempt a tool function is running: send `idempotency_key` to the provider (an Idempotency-Key header, a
    client token); every attempt of the operation reuses it."""

    operation_id: str
    idempotency_key: str
    attempt: int


_run: ContextVar[RunScope | None] = ContextVar("opledger_run", default=None)
_attempt: ContextVar[Attempt | None] = ContextVar("opledger_attempt", default=None)


@contextmanager
def run_scope(run_id: str, agent_id: str | None = None) -> Iterator[RunScope]:
    scope = RunScope(run_id, agent_id)
    token = _run.set(scope)
    try:
        yield scope
    finally:
        _run.reset(token)


def current_run() -> RunScope | None:
    return _run.get()


@contextmanager
def attempt_scope(attempt: Attempt) -> Iterator[Attempt]:
    token = _attempt.set(attempt)
    try:
        yield attempt
    finally:
        _attempt.reset(token)


def current_attempt() -> Attempt:
    """The attempt the calling tool function is running; LookupError outside a decorated function's call."""
    attempt = _attempt.get()
    if attempt is None:
        raise LookupError("current_attempt() is only known inside a function decorated with @ledger.tool")
    return attempt
