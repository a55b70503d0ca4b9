"""How a tool function's ending is reported (no server): the executor's classification, in Python's exceptions."""

from __future__ import annotations

import email.utils

import httpx
import pytest

from opledger import ProviderError
from opledger.outcome import raised, retry_after_ms, returned, thrown_kind


def status_error(status: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "https://psp.example/charges")
    response = httpx.Response(status, headers=headers, request=request)
    return httpx.HTTPStatusError(f"{status} from the provider", request=request, response=response)


def test_a_returned_value_is_confirmed_with_its_provider_id():
    assert returned({"id": "ch_1"}, "ch_1").body(3) == {"fence": 3, "result": "confirmed", "providerId": "ch_1"}


def test_an_http_error_answer_is_failed_with_its_status_and_retry_after():
    outcome = raised(status_error(429, {"retry-after": "2"}))
    assert outcome.body(1) == {
        "fence": 1,
        "result": "failed",
        "error": {"httpStatus": 429, "message": "429 from the provider", "retryAfterMs": 2000},
    }
    assert outcome.describe() == "failed (HTTP 429)"


def test_a_provider_error_raised_on_purpose_is_failed():
    outcome = raised(ProviderError("card declined", kind="validation", http_status=402, retry_after=0.25))
    assert outcome.result == "failed"
    assert outcome.error == {"message": "card declined", "kind": "validation", "httpStatus": 402, "retryAfterMs": 250}


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (httpx.ReadTimeout("read timed out"), "timeout"),
        (httpx.ConnectTimeout("connect timed out"), "timeout"),
        (TimeoutError(), "timeout"),
        (httpx.ConnectError("[Errno 111] Connection refused"), "connection_refused"),
        (httpx.RemoteProtocolError("server disconnected"), "connection_reset"),
        (ConnectionResetError(), "connection_reset"),
        (KeyError("amount"), "KeyError"),
    ],
)
def test_any_other_exception_is_an_unknown_outcome_named_in_the_gates_words(error, kind):
    outcome = raised(error)
    assert (outcome.result, outcome.error["kind"], outcome.exception) == ("unknown", kind, error)


def test_the_kind_is_found_through_the_exceptions_cause():
    try:
        try:
            raise ConnectionRefusedError(111, "refused")
        except OSError as cause:
            raise RuntimeError("the SDK gave up") from cause
    except RuntimeError as error:
        assert thrown_kind(error) == "connection_refused"


def test_retry_after_reads_seconds_and_http_dates():
    assert retry_after_ms("1.5") == 1500
    assert retry_after_ms(email.utils.formatdate(1_000_030, usegmt=True), now=1_000_000) == 30_000
    assert retry_after_ms(email.utils.formatdate(999_000, usegmt=True), now=1_000_000) == 0
    assert retry_after_ms("soon") is None
    assert retry_after_ms(None) is None
