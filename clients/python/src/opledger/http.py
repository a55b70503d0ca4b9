"""The ledger API over httpx, for both drivers: how a request is made and how an answer is read (an error answer is an
RFC 9457 problem document with a stable `code`, raised as LedgerApiError)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .errors import LedgerApiError
from .steps import Send
from .wire import Decision


def client_options(url: str, api_key: str, timeout: float) -> dict[str, Any]:
    """Keyword arguments for httpx.Client and httpx.AsyncClient alike (httpx 0.23 and later)."""
    return {
        "base_url": url.rstrip("/"),
        "headers": {
            "authorization": f"Bearer {api_key}",
            "accept": "application/json, application/problem+json",
            "user-agent": "opledger-python",
        },
        "timeout": timeout,
    }


def request_options(step: Send) -> dict[str, Any]:
    options: dict[str, Any] = {"method": step.method, "url": step.path}
    if step.body is not None:
        options["content"] = json.dumps(step.body, separators=(",", ":")).encode()
        options["headers"] = {"content-type": "application/json"}
    return options


def read_answer(response: httpx.Response) -> Any:
    """The JSON body of a 2xx answer; raises LedgerApiError for an error answer."""
    if response.is_success:
        return response.json()
    try:
        problem = response.json()
    except ValueError:
        problem = None
    if not isinstance(problem, dict):
        text = response.text[:200] or f"The ledger API answered {response.status_code} without a problem document."
        raise LedgerApiError(status=response.status_code, code="http_error", detail=text)
    decision = problem.get("decision")
    raise LedgerApiError(
        status=response.status_code,
        code=str(problem.get("code") or "http_error"),
        detail=str(problem.get("detail") or problem.get("title") or response.reason_phrase),
        operation_id=problem.get("operationId"),
        decision=Decision.from_json(decision) if isinstance(decision, dict) else None,
    )
