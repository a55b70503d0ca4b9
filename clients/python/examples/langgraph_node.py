"""A LangGraph-style node behind the ledger: a function from the graph's state to a state update.

With LangGraph, add it as `graph.add_node("charge", make_charge_node(ledger, psp_url))`. A graph resumed after a crash
runs the node again with the same state; the key made from the order id finds the same operation, so the card is
charged once. This file imports no framework: the node is a plain function of a dict.
"""

from __future__ import annotations

from typing import Any, Callable, TypedDict

import httpx

import opledger


class OrderState(TypedDict, total=False):
    thread_id: str
    order_id: str
    amount: int
    charge_id: str
    error: str


def make_charge_node(ledger: opledger.Ledger, psp_url: str) -> Callable[[OrderState], OrderState]:
    @ledger.tool(
        "payments.charge",
        key=lambda state: f"charge:{state['order_id']}",
        # Only what identifies the charge goes into the plan; the rest of the state is the graph's business.
        args=lambda state: {"order_id": state["order_id"], "amount": state["amount"]},
        # The graph's thread is the run: every call of this conversation is listed under it in the console.
        run_id=lambda state: state["thread_id"],
        provider_id=lambda charge: str(charge["id"]),
    )
    def charge(state: OrderState) -> dict[str, Any]:
        answer = httpx.post(
            psp_url,
            json={"order_id": state["order_id"], "amount": state["amount"]},
            headers={"idempotency-key": opledger.current_attempt().idempotency_key},
            timeout=10,
        )
        answer.raise_for_status()
        charged: dict[str, Any] = answer.json()
        return charged

    def charge_node(state: OrderState) -> OrderState:
        try:
            return {"charge_id": charge(state)["id"]}
        except opledger.AlreadyDone as done:
            # A resumed graph: the charge happened in an earlier run of this node.
            return {"charge_id": done.provider_id or ""}
        except opledger.OpledgerError as error:
            # Waiting for a person, outcome unknown, rejected...: the graph routes on `error`, a sentence for a model.
            return {"error": str(error)}

    return charge_node
