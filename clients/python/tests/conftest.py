"""The session's world: one production server on SQLite, an agent key, an operator person with a key of their own, and
the effect-counting provider; per test, tool contracts with names of their own."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from effect_provider import EffectProvider
from ledger_server import BOOTSTRAP_KEY, OPERATOR_EMAIL, LedgerServer, start_server

import opledger


@dataclass
class World:
    url: str
    agent_key: str
    operator_key: str
    admin: httpx.Client
    operator: httpx.Client
    provider: EffectProvider

    def contract(self, effect: str, *, tool: str | None = None, dependency: str | None = None) -> str:
        """Writes a contract (for a tool of this test's own unless named); answers the tool's name. Backoff is short:
        100-300 ms."""
        tool = tool or f"py.{effect.lower()}.{uuid.uuid4().hex[:10]}"
        body: dict[str, Any] = {
            "effect": effect,
            "idempotencyKey": "optional",
            "reconcile": None,
            "approval": "not_required",
            "maxAttempts": 3,
            "backoff": {"baseMs": 100, "maxMs": 300},
        }
        if dependency:
            body["dependency"] = dependency
        answer = self.admin.put(f"/api/v1/contracts/{tool}", json=body)
        assert answer.status_code in (200, 201), answer.text
        return tool

    def operation(self, operation_id: str) -> dict[str, Any]:
        answer = self.admin.get(f"/api/v1/operations/{operation_id}")
        assert answer.status_code == 200, answer.text
        return answer.json()

    def approve(self, operation_id: str, reason: str = "checked with the customer") -> dict[str, Any]:
        """A person approves the next attempt through the API, with their operator key."""
        answer = self.operator.post(f"/api/v1/operations/{operation_id}/approve", json={"reason": reason})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def ledger(self, **options: Any) -> opledger.Ledger:
        """A Ledger with the agent key; tests wait at most a few seconds for anything."""
        settings: dict[str, Any] = {"max_wait": 5.0, "poll": 0.1, **options}
        return opledger.Ledger(self.url, self.agent_key, **settings)


@pytest.fixture(scope="session")
def server() -> Iterator[LedgerServer]:
    started = start_server()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="session")
def world(server: LedgerServer) -> Iterator[World]:
    def client(key: str) -> httpx.Client:
        return httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {key}"}, timeout=10)

    # Two CLI runs at once: the agent's key, and the operator person (then their key, which names them).
    with ThreadPoolExecutor(2) as pool:
        agent = pool.submit(server.create_key, "python-agent", "agent")
        pool.submit(
            server.cli, "create-user", "--email", OPERATOR_EMAIL, "--role", "operator", "--password", "python tests pw"
        ).result()
        operator_key = server.create_key("python-operator", "operator", OPERATOR_EMAIL)
        agent_key = agent.result()
    provider = EffectProvider()
    with client(BOOTSTRAP_KEY) as admin, client(operator_key) as operator:
        yield World(server.url, agent_key, operator_key, admin, operator, provider)
    provider.close()


@pytest.fixture
def account(world: World) -> Callable[..., tuple[str, str]]:
    """account(script, hang=..., delay=...) -> (name, url): a provider account of this test's own."""

    def make(script: list[int | str], **options: float) -> tuple[str, str]:
        name = uuid.uuid4().hex[:12]
        return name, world.provider.account(name, script, **options)

    return make


@pytest.fixture
def attempt_lines(caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """The opledger logger's lines so far in this test."""
    caplog.set_level(logging.INFO, logger="opledger")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "opledger"]
