"""How the tool function's call ended, and the outcome report that says so to the ledger.

As in the TypeScript executor (lib/executor/provider-call.ts): only a definite error answer is `failed`
(`httpx.HTTPStatusError`, or `ProviderError` raised on purpose); any other exception, a timeout above all, is
`unknown`, because the request may have reached the provider.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from dataclasses import dataclass
from typing import Any

import httpx

from .errors import ProviderError

#: The longest error message sent to the ledger.
_MESSAGE_LIMIT = 500


@dataclass(frozen=True)
class CallOutcome:
    """`result` is confirmed, failed or unknown; `lease_lost` when another worker took the operation over meanwhile."""

    result: str
    value: Any = None
    provider_id: str | None = None
    error: dict[str, Any] | None = None
    #: What the function raised, kept as the cause of the exception the caller gets.
    exception: BaseException | None = None
    lease_lost: bool = False

    def body(self, fence: int) -> dict[str, Any]:
        """The body of POST /api/v1/operations/{id}/outcome."""
        body: dict[str, Any] = {"fence": fence, "result": self.result}
        if self.provider_id is not None:
            body["providerId"] = self.provider_id
        if self.error is not None:
            body["error"] = self.error
        return body

    def describe(self) -> str:
        """The attempt's part of its log line: "confirmed", "failed (HTTP 503)", "unknown (timeout)"."""
        error = self.error or {}
        parts = [str(error["kind"])] if "kind" in error else []
        if "httpStatus" in error:
            parts.append(f"HTTP {error['httpStatus']}")
        return f"{self.result} ({', '.join(parts)})" if parts else self.result


def returned(value: Any, provider_id: str | None) -> CallOutcome:
    return CallOutcome("confirmed", value=value, provider_id=provider_id)


def timed_out(seconds: float) -> CallOutcome:
    return CallOutcome("unknown", error={"kind": "timeout", "message": f"no answer within {seconds:g} s"})


def lease_lost(exception: BaseException | None = None) -> CallOutcome:
    return CallOutcome("unknown", exception=exception, lease_lost=True)


def raised(error: BaseException) -> CallOutcome:
    """Classifies what the tool function raised."""
    if isinstance(error, ProviderError):
        report: dict[str, Any] = {"message": _message(error)}
        if error.kind is not None:
            report["kind"] = error.kind
        if error.http_status is not None:
            report["httpStatus"] = error.http_status
        if error.retry_after is not None:
            report["retryAfterMs"] = max(0, round(error.retry_after * 1000))
        return CallOutcome("failed", error=report, exception=error)
    if isinstance(error, httpx.HTTPStatusError):
        response = error.response
        report = {"httpStatus": response.status_code, "message": _message(error)}
        retry_after = retry_after_ms(response.headers.get("retry-after"))
        if retry_after is not None:
            report["retryAfterMs"] = retry_after
        return CallOutcome("failed", error=report, exception=error)
    return CallOutcome("unknown", error={"kind": thrown_kind(error), "message": _message(error)}, exception=error)


def thrown_kind(error: BaseException) -> str:
    """The gate's error kind for an exception (lib/retry-gate/classify-error.ts reads it), else its class name."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        kind = _own_kind(current)
        if kind:
            return kind
        current = current.__cause__ or current.__context__
    return type(error).__name__


def _own_kind(error: BaseException) -> str | None:
    if isinstance(error, (httpx.TimeoutException, TimeoutError, asyncio.TimeoutError)):
        return "timeout"
    if isinstance(error, (ConnectionRefusedError, httpx.ConnectError)):
        return "connection_refused"
    if isinstance(error, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
        return "connection_reset"
    if isinstance(error, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
        return "connection_reset"
    return None


def retry_after_ms(header: str | None, now: float | None = None) -> int | None:
    """A Retry-After header (seconds or an HTTP date) as milliseconds from now; None when absent or unreadable."""
    if header is None or not header.strip():
        return None
    value = header.strip()
    try:
        return max(0, round(float(value) * 1000))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at is None or at.tzinfo is None:
        return None
    return max(0, round((at.timestamp() - (time.time() if now is None else now)) * 1000))


def _message(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text[:_MESSAGE_LIMIT]
