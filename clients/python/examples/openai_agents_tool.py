"""An OpenAI-Agents-style function tool behind the ledger: an async function with a docstring and typed parameters,
whose answer (or failure message) goes back to the model as text.

With the OpenAI Agents SDK, wrap the tool as `function_tool(make_refund_tool(ledger, psp_url))` and give it to an
Agent. This file imports no framework: the tool is a plain async function.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import httpx

import opledger


def make_refund_tool(ledger: opledger.Ledger, psp_url: str) -> Callable[[str, int], Awaitable[str]]:
    @ledger.tool("payments.refund", key=lambda charge_id, amount: f"refund:{charge_id}:{amount}", timeout=20)
    async def refund(charge_id: str, amount: int) -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(
                psp_url,
                json={"charge": charge_id, "amount": amount},
                headers={"idempotency-key": opledger.current_attempt().idempotency_key},
            )
        answer.raise_for_status()
        refunded: dict[str, Any] = answer.json()
        return refunded

    async def refund_payment(charge_id: str, amount: int) -> str:
        """Refund part or all of a card payment.

        Args:
            charge_id: The charge to refund, as the payment provider named it.
            amount: How much to refund, in cents.
        """
        try:
            done = await refund(charge_id, amount)
        except opledger.OpledgerError as error:
            # Its message tells the model what happened and what to do next (wait, do not repeat, tell the user).
            return str(error)
        return f"Refunded {amount} cents of {charge_id} (refund {done['id']})."

    return refund_payment
