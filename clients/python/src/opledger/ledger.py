"""`Ledger(url, api_key)` and its `@ledger.tool(...)` decorator: a sync or async tool function called through the
ledger, one operation per call (docs/python.md)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import httpx

from . import async_driver, outcome, sync_driver
from .call_spec import CallSpec, Limits
from .context import RunScope, current_run, run_scope
from .http import client_options

#: A tool function, sync or async; the decorator hands back one with the same signature.
F = TypeVar("F", bound=Callable[..., Any])

#: Where each call's attempt lines go (one INFO line per attempt).
LOGGER = logging.getLogger("opledger")

#: A value for the plan, made from the tool function's arguments (called with them by name: lambda order_id, **_: ...).
FromArgs = Callable[..., Any]


class Ledger:
    """A ledger to put tool functions behind: where its API is, the API key, and defaults for every tool."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        agent_id: str | None = None,
        lease: float = 30.0,
        heartbeat: float | None = None,
        max_wait: float = 60.0,
        approval_wait: float = 0.0,
        poll: float = 0.5,
        request_timeout: float = 10.0,
        worker: str | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        """Times are seconds. `lease`: how long a call's lease lasts between heartbeats (every `heartbeat`, default a
        third of it). `max_wait`: the longest backoff or cooldown a call sleeps through. `approval_wait`: how long a
        call waits for a person's approval before it raises ApprovalRequired. `worker`: the prefix of the worker id
        each call takes (default host and process id)."""
        self.url = url.rstrip("/")
        self._api_key = api_key
        self.agent_id = agent_id
        self.limits = Limits(
            lease=lease, heartbeat=heartbeat, max_wait=max_wait, approval_wait=approval_wait, poll=poll
        )
        self.request_timeout = request_timeout
        self.worker = worker or f"py:{socket.gethostname()}:{os.getpid()}"
        self.log = logger or LOGGER
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    def run(self, run_id: str, agent_id: str | None = None) -> AbstractContextManager[RunScope]:
        """`with ledger.run("run-42"):` every tool call inside (in this thread or task, and tasks it starts) belongs to
        that run (and agent)."""
        return run_scope(run_id, agent_id)

    def close(self) -> None:
        """Closes the connections of sync calls (async calls open and close their own)."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def tool(
        self,
        name: str,
        *,
        key: FromArgs | None = None,
        args: FromArgs | None = None,
        run_id: str | FromArgs | None = None,
        agent_id: str | FromArgs | None = None,
        provider_id: Callable[[Any], str | None] | None = None,
        timeout: float | None = None,
        approval_wait: float | None = None,
        max_wait: float | None = None,
    ) -> Callable[[F], F]:
        """Puts a tool function behind the ledger's contract for tool `name`.

        `key` makes the idempotency key from the function's arguments, once per call, before the first attempt
        (without it the ledger makes one per call). `args` makes the arguments recorded in the plan (default: the
        function's arguments by name, which must then be JSON). `run_id` and `agent_id` are strings or made from the
        arguments; otherwise they come from `with ledger.run(...)`, then the Ledger. `provider_id` reads the
        provider's id for the effect from the function's return value. `timeout` (seconds, async functions only)
        cancels a call still running and reports its outcome as unknown.
        """
        overrides = {
            field: value
            for field, value in (("timeout", timeout), ("approval_wait", approval_wait), ("max_wait", max_wait))
            if value is not None
        }
        limits = dataclasses.replace(self.limits, **overrides)

        def decorate(fn: F) -> F:
            signature = inspect.signature(fn)

            def spec_of(call_args: tuple[Any, ...], call_kwargs: dict[str, Any]) -> CallSpec:
                bound = signature.bind(*call_args, **call_kwargs)
                bound.apply_defaults()
                named = dict(bound.arguments)
                scope = current_run()
                return CallSpec(
                    tool=name,
                    args=_json_args(name, args(**named) if args else named),
                    idempotency_key=str(key(**named)) if key else None,
                    run_id=_pick(run_id, named, scope.run_id if scope else None),
                    agent_id=_pick(agent_id, named, (scope.agent_id if scope else None) or self.agent_id),
                    worker_id=f"{self.worker}:{uuid.uuid4().hex[:12]}",
                    limits=limits,
                    log=self.log,
                )

            if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):

                @functools.wraps(fn)
                async def call_async(*call_args: Any, **call_kwargs: Any) -> Any:
                    spec = spec_of(call_args, call_kwargs)

                    async def invoke() -> outcome.CallOutcome:
                        try:
                            value = await fn(*call_args, **call_kwargs)
                        except Exception as error:
                            return outcome.raised(error)
                        return outcome.returned(value, self._provider_id(provider_id, value))

                    async with httpx.AsyncClient(**self._client_options()) as client:
                        return await async_driver.drive(client, spec, invoke)

                return call_async  # type: ignore[return-value]

            @functools.wraps(fn)
            def call_sync(*call_args: Any, **call_kwargs: Any) -> Any:
                spec = spec_of(call_args, call_kwargs)

                def invoke() -> outcome.CallOutcome:
                    try:
                        value = fn(*call_args, **call_kwargs)
                    except Exception as error:
                        return outcome.raised(error)
                    return outcome.returned(value, self._provider_id(provider_id, value))

                return sync_driver.drive(self._sync_client(), spec, invoke)

            return call_sync  # type: ignore[return-value]

        return decorate

    def _client_options(self) -> dict[str, Any]:
        return client_options(self.url, self._api_key, self.request_timeout)

    def _sync_client(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(**self._client_options())
            return self._client

    def _provider_id(self, read: Callable[[Any], str | None] | None, value: Any) -> str | None:
        """The provider's id for the effect; a reader that fails must not turn a confirmed effect into a failure."""
        if read is None:
            return None
        try:
            found = read(value)
        except Exception:
            self.log.warning("[opledger] provider_id could not read the return value", exc_info=True)
            return None
        return None if found is None else str(found)


def _pick(given: str | FromArgs | None, named: dict[str, Any], fallback: str | None) -> str | None:
    if callable(given):
        made = given(**named)
        return None if made is None else str(made)
    return given if given is not None else fallback


def _json_args(tool: str, value: Any) -> Any:
    """The plan's arguments must be JSON: the ledger compares them to tell a repeat from a reused key."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"The arguments of {tool} are not JSON ({error}); pass args=lambda ...: {{...}} to @ledger.tool to say "
            "which of them the ledger records."
        ) from None

