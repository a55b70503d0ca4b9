"""The decorator against the real server (issue #33, "How it is proven"): each test calls a tool function that posts to
the effect-counting provider, and checks the provider's count beside the ledger's operation."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import opledger
from opledger import current_attempt


def post_effect(url: str, timeout: float = 5.0) -> dict:
    """What a real tool function does: one request, with the operation's key, and raise_for_status."""
    answer = httpx.post(
        url, json={"amount": 500}, headers={"idempotency-key": current_attempt().idempotency_key}, timeout=timeout
    )
    answer.raise_for_status()
    return answer.json()


def test_a_call_is_planned_run_and_confirmed(world, account, attempt_lines):
    tool = world.contract("IDEMPOTENT")
    name, url = account([200])
    ledger = world.ledger(agent_id="billing-agent")

    @ledger.tool(tool, key=lambda order_id, **_: f"charge:{order_id}", provider_id=lambda answer: answer["id"])
    def charge(order_id: str, amount: int) -> dict:
        return post_effect(url)

    with ledger.run("run-42"):
        answer = charge("order-1", amount=500)

    assert answer == {"id": f"{name}-effect-1"}
    assert world.provider.effects(name) == 1
    assert world.provider.requests(name)[0][1] == "charge:order-1"
    [line] = attempt_lines()
    operation_id = re.search(r"operation (\S+)\)", line).group(1)
    op = world.operation(operation_id)
    assert (op["phase"], op["attempt"], op["idempotencyKey"]) == ("CONFIRMED", 1, "charge:order-1")
    assert (op["runId"], op["agentId"], op["providerId"]) == ("run-42", "billing-agent", f"{name}-effect-1")
    assert op["args"] == {"order_id": "order-1", "amount": 500}
    assert f"{tool} attempt 1 (operation {operation_id}): confirmed; backoff waited 0 ms; gate: STOP" in line


def test_a_pure_call_that_fails_twice_is_retried_with_the_gates_backoff(world, account, attempt_lines):
    tool = world.contract("PURE")
    name, url = account([503, 503, 200])
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda city: f"forecast:{city}")
    async def forecast(city: str) -> dict:
        return post_effect(url)

    assert asyncio.run(forecast("Oslo")) == {"id": f"{name}-effect-1"}

    lines = attempt_lines()
    assert [re.search(r"attempt (\d+)", line).group(1) for line in lines] == ["1", "2", "3"]
    assert "failed (HTTP 503)" in lines[0] and "gate: RETRY" in lines[0]
    # Each attempt's backoff is the wait the gate named after the one before it, and the provider saw the gap.
    asked = [int(m.group(1)) if (m := re.search(r"gate: RETRY in (\d+) ms", line)) else 0 for line in lines[:2]]
    waited = [int(re.search(r"backoff waited (\d+) ms", line).group(1)) for line in lines[1:]]
    assert waited == asked
    times = [at for at, _ in world.provider.requests(name)]
    for gap, wait_ms in zip((b - a for a, b in zip(times, times[1:])), waited):
        assert gap >= wait_ms / 1000 - 0.01
    assert world.provider.effects(name) == 1


def test_a_non_retryable_retry_needs_a_person_and_then_runs_exactly_once(world, account):
    tool = world.contract("NON_RETRYABLE")
    name, url = account([503, 200])
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda payee, amount: f"payout:{payee}:{amount}")
    def payout(payee: str, amount: int) -> dict:
        return post_effect(url)

    with pytest.raises(opledger.ApprovalRequired) as raised:
        payout("acme", 900)
    error = raised.value
    assert error.decision.action == "APPROVAL"
    assert isinstance(error.__cause__, httpx.HTTPStatusError)
    assert f"waits for a person's approval (operation {error.operation_id})" in str(error)
    assert world.provider.effects(name) == 0

    world.approve(error.operation_id)
    assert payout("acme", 900) == {"id": f"{name}-effect-1"}
    op = world.operation(error.operation_id)
    assert (op["phase"], op["attempt"]) == ("CONFIRMED", 2)
    assert len(world.provider.requests(name)) == 2
    assert world.provider.effects(name) == 1


def test_a_call_waits_for_a_person_up_to_its_limit(world, account):
    tool = world.contract("NON_RETRYABLE")
    name, url = account([503, 200])
    ledger = world.ledger()
    waiting: list[str] = []

    def approve_when_asked() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = world.admin.get("/api/v1/operations", params={"tool": tool, "phase": "AWAITING_APPROVAL"}).json()
            if found["items"]:
                waiting.append(found["items"][0]["id"])
                world.approve(waiting[0])
                return
            time.sleep(0.1)

    @ledger.tool(tool, key=lambda payee: f"payout:{payee}", approval_wait=10)
    async def payout(payee: str) -> dict:
        return post_effect(url)

    async def call_and_approve() -> dict:
        approver = asyncio.get_running_loop().run_in_executor(None, approve_when_asked)
        answer = await payout("globex")
        await approver
        return answer

    assert asyncio.run(call_and_approve()) == {"id": f"{name}-effect-1"}
    assert world.operation(waiting[0])["phase"] == "CONFIRMED"
    assert (len(world.provider.requests(name)), world.provider.effects(name)) == (2, 1)


def test_a_call_that_times_out_after_the_provider_committed_ends_unknown_and_is_not_retried(world, account):
    tool = world.contract("IDEMPOTENT")
    name, url = account(["hang"], hang=1.5)
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda ref: f"transfer:{ref}")
    def transfer(ref: str) -> dict:
        return post_effect(url, timeout=0.3)

    with pytest.raises(opledger.OutcomeUnknown) as raised:
        transfer("t-1")
    assert raised.value.decision.action == "RECONCILE"
    assert isinstance(raised.value.__cause__, httpx.TimeoutException)
    op = world.operation(raised.value.operation_id)
    assert (op["phase"], op["attempt"], op["lastError"]["kind"]) == ("UNKNOWN", 1, "timeout")

    # Called again with the same key, it is answered from the ledger: nothing is sent.
    with pytest.raises(opledger.OutcomeUnknown):
        transfer("t-1")
    assert (len(world.provider.requests(name)), world.provider.effects(name)) == (1, 1)


def test_an_async_call_past_its_timeout_is_cancelled_and_ends_unknown(world, account):
    tool = world.contract("IDEMPOTENT")
    name, url = account(["hang"], hang=1.5)
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda ref: f"transfer:{ref}", timeout=0.3)
    async def transfer(ref: str) -> dict:
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(url, headers={"idempotency-key": current_attempt().idempotency_key})
        return answer.json()

    with pytest.raises(opledger.OutcomeUnknown) as raised:
        asyncio.run(transfer("t-2"))
    op = world.operation(raised.value.operation_id)
    assert (op["phase"], op["attempt"], op["lastError"]["kind"]) == ("UNKNOWN", 1, "timeout")
    assert (len(world.provider.requests(name)), world.provider.effects(name)) == (1, 1)


def test_an_open_breaker_raises_dependency_unavailable_naming_the_dependency(world, account):
    dependency = f"psp-{time.monotonic_ns()}"
    tool = world.contract("IDEMPOTENT", dependency=dependency)
    settings = {"failureThreshold": 1, "cooldownMs": 60_000, "probes": 1, "reason": "open fast", "expectedVersion": 0}
    answer = world.admin.put(f"/api/v1/dependencies/{dependency}/breaker", json=settings)
    assert answer.status_code == 200, answer.text
    name, url = account([503, 200])
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda ref: f"capture:{ref}")
    def capture(ref: str) -> dict:
        return post_effect(url)

    for ref in ("c-1", "c-2"):
        with pytest.raises(opledger.DependencyUnavailable) as raised:
            capture(ref)
        assert raised.value.dependency == dependency
        assert raised.value.decision.action == "UNAVAILABLE"
        assert raised.value.decision.retry_after_ms > 5000
        assert f"The service {dependency} behind {tool} is unavailable" in str(raised.value)
    # The second call was held by the open breaker: only the first reached the provider.
    assert len(world.provider.requests(name)) == 1


def test_a_stale_workers_outcome_is_refused(world, account):
    tool = world.contract("IDEMPOTENT")
    name, url = account([200])
    # Worker A's lease is never renewed: it stands for a worker paused past its lease (1.5 s: long enough to reach
    # the provider on a loaded machine).
    stale = world.ledger(lease=1.5, heartbeat=600)
    fresh = world.ledger()
    taken_over: list[opledger.OpledgerError] = []

    @fresh.tool(tool, key=lambda ref: f"ship:{ref}")
    def ship_again(ref: str) -> dict:
        return post_effect(url)

    @stale.tool(tool, key=lambda ref: f"ship:{ref}")
    def ship(ref: str) -> dict:
        answer = post_effect(url)
        # Worker B calls with the same key while A is "paused": it waits out A's lease, which the sweep (or B's
        # claim) turns into UNKNOWN, fencing A out.
        try:
            ship_again(ref)
        except opledger.OpledgerError as error:
            taken_over.append(error)
        return answer

    with pytest.raises(opledger.Refused) as raised:
        ship("s-1")
    assert raised.value.code == "stale_fence"
    assert "its outcome was refused (fencing)" in str(raised.value)
    assert [type(e) for e in taken_over] == [opledger.OutcomeUnknown]
    op = world.operation(raised.value.operation_id)
    assert op["phase"] == "UNKNOWN" and op["fence"] >= 2
    assert "operation.stale_fence_rejected" in [event["action"] for event in op["audit"]]
    # The provider applied the one request the stale worker sent; the fresh worker sent none.
    assert (len(world.provider.requests(name)), world.provider.effects(name)) == (1, 1)


def test_a_rejected_call_raises_rejected_with_the_persons_reason(world, account):
    tool = world.contract("NON_RETRYABLE")
    name, url = account([503])
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda ref: f"wire:{ref}")
    def wire(ref: str) -> dict:
        return post_effect(url)

    with pytest.raises(opledger.ApprovalRequired) as raised:
        wire("w-1")
    answer = world.operator.post(
        f"/api/v1/operations/{raised.value.operation_id}/reject", json={"reason": "duplicate of w-0"}
    )
    assert answer.status_code == 200, answer.text
    with pytest.raises(opledger.Rejected) as rejected:
        wire("w-1")
    assert rejected.value.reason.endswith("duplicate of w-0")
    assert 'a person rejected this call' in str(rejected.value)
    assert len(world.provider.requests(name)) == 1


def test_two_processes_calling_with_the_same_key_make_one_effect(world, account):
    tool = world.contract("NON_RETRYABLE")
    # The provider takes half a second to answer, so the second process finds the first one's call in flight.
    name, url = account([200], delay=0.5)
    caller = Path(__file__).with_name("same_key_caller.py")
    env = {**os.environ, "PYTHONPATH": str(Path(opledger.__file__).parents[1])}
    processes = [
        subprocess.Popen(
            [sys.executable, str(caller), world.url, world.agent_key, tool, url, "order-7"],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    answers = sorted((json.loads(p.communicate(timeout=60)[0]) for p in processes), key=lambda a: "value" not in a)

    assert answers[0] == {"value": {"id": f"{name}-effect-1"}}
    assert answers[1]["raised"] == "AlreadyDone"
    assert world.provider.effects(name) == 1
    assert world.operation(answers[1]["operation"])["phase"] == "CONFIRMED"


def test_heartbeats_keep_the_lease_while_a_slow_function_runs(world, account):
    tool = world.contract("IDEMPOTENT")
    name, url = account([200])
    # A 0.6 s lease, renewed every 0.2 s, outlives a function that takes 1.5 s; the sweep runs every 0.2 s.
    ledger = world.ledger(lease=0.6)

    @ledger.tool(tool, key=lambda ref: f"export:{ref}")
    def export(ref: str) -> dict:
        time.sleep(1.5)
        return post_effect(url)

    assert export("e-1") == {"id": f"{name}-effect-1"}
    assert world.provider.effects(name) == 1


def test_each_asyncio_task_calls_under_its_own_run(world):
    tool = world.contract("PURE")
    ledger = world.ledger()

    @ledger.tool(tool, key=lambda n: f"lookup:{n}")
    async def lookup(n: int) -> str:
        await asyncio.sleep(0.05)  # Both tasks are inside their runs at once.
        return current_attempt().operation_id

    async def in_run(run_id: str, n: int) -> str:
        with ledger.run(run_id, agent_id=f"agent-{n}"):
            return await lookup(n)

    async def both() -> list[str]:
        return list(await asyncio.gather(in_run("run-a", 1), in_run("run-b", 2)))

    first, second = asyncio.run(both())
    assert [world.operation(first)[f] for f in ("runId", "agentId")] == ["run-a", "agent-1"]
    assert [world.operation(second)[f] for f in ("runId", "agentId")] == ["run-b", "agent-2"]
