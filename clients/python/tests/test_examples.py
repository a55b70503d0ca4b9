"""The two examples (examples/), run against the session's server as their frameworks would run them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from langgraph_node import make_charge_node  # noqa: E402
from openai_agents_tool import make_refund_tool  # noqa: E402


def test_the_langgraph_node_charges_once_even_when_the_graph_runs_it_again(world, account):
    world.contract("IDEMPOTENT", tool="payments.charge")
    name, url = account([200])
    node = make_charge_node(world.ledger(), url)
    state = {"thread_id": "thread-9", "order_id": "order-9", "amount": 1200, "messages": ["a graph's own data"]}

    first = node(state)
    assert first == {"charge_id": f"{name}-effect-1"}
    # The graph resumed after a crash runs the node again with the same state: answered from the ledger.
    assert node(state) == first
    assert world.provider.effects(name) == 1
    [op] = world.admin.get("/api/v1/operations", params={"runId": "thread-9"}).json()["items"]
    assert (op["tool"], op["providerId"]) == ("payments.charge", first["charge_id"])
    assert op["args"] == {"order_id": "order-9", "amount": 1200}


def test_the_agents_tool_answers_the_model_in_sentences(world, account):
    world.contract("NON_RETRYABLE", tool="payments.refund")
    name, url = account([503, 200])
    refund_payment = make_refund_tool(world.ledger(), url)

    told = asyncio.run(refund_payment("ch_1", 300))
    assert told.startswith("opledger: payments.refund waits for a person's approval (operation ")
    assert "Call it again with the same arguments after approval" in told

    operation_id = told.split("(operation ")[1].split(")")[0]
    world.approve(operation_id)
    assert asyncio.run(refund_payment("ch_1", 300)) == f"Refunded 300 cents of ch_1 (refund {name}-effect-1)."
    assert world.provider.effects(name) == 1
