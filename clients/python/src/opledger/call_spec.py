"""One tool call, resolved once before anything is sent: the plan (tool, arguments, the key made once, run and agent)
and the limits its lifecycle obeys."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote


@dataclass(frozen=True)
class Limits:
    """How long a call keeps its lease and how long it waits, in seconds (Ledger and ledger.tool set them)."""

    lease: float = 30.0
    #: Default: a third of the lease.
    heartbeat: float | None = None
    #: The longest single backoff (or breaker cooldown) a call sleeps through; longer raises Refused/Unavailable.
    max_wait: float = 60.0
    #: How long a call waits for a person's approval before it raises ApprovalRequired.
    approval_wait: float = 0.0
    #: How often a waiting call reads the operation again.
    poll: float = 0.5
    #: An async tool function still running after this is cancelled and reported as `unknown`; None: no limit.
    timeout: float | None = None

    @property
    def heartbeat_every(self) -> float:
        return self.heartbeat if self.heartbeat is not None else self.lease / 3

    @property
    def lease_ms(self) -> int:
        return max(100, round(self.lease * 1000))


@dataclass(frozen=True)
class CallSpec:
    tool: str
    args: Any
    idempotency_key: str | None
    run_id: str | None
    agent_id: str | None
    worker_id: str
    limits: Limits
    log: logging.Logger

    def plan_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"tool": self.tool, "args": self.args}
        for name, value in (
            ("idempotencyKey", self.idempotency_key),
            ("runId", self.run_id),
            ("agentId", self.agent_id),
        ):
            if value is not None:
                body[name] = value
        return body


def operation_path(operation_id: str, action: str = "") -> str:
    path = f"/api/v1/operations/{quote(operation_id, safe='')}"
    return f"{path}/{action}" if action else path


def contract_path(tool: str) -> str:
    return f"/api/v1/contracts/{quote(tool, safe='')}"
