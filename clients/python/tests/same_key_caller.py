"""One process of the two-process test: calls a tool once and prints how the call ended, as JSON.

usage: same_key_caller.py LEDGER_URL AGENT_KEY TOOL PROVIDER_URL ORDER_ID
"""

from __future__ import annotations

import json
import sys

import httpx

import opledger

url, agent_key, tool, provider_url, order_id = sys.argv[1:6]
ledger = opledger.Ledger(url, agent_key, max_wait=20, poll=0.1)


@ledger.tool(tool, key=lambda order_id: f"charge:{order_id}")
def charge(order_id: str) -> dict:
    key = opledger.current_attempt().idempotency_key
    answer = httpx.post(provider_url, json={"order_id": order_id}, headers={"idempotency-key": key}, timeout=10)
    answer.raise_for_status()
    return answer.json()


try:
    print(json.dumps({"value": charge(order_id)}))
except opledger.OpledgerError as error:
    print(json.dumps({"raised": type(error).__name__, "operation": error.operation_id}))
