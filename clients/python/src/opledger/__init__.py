"""opledger: put a Python tool function behind the opledger ledger with one decorator (docs/python.md)."""

from .context import Attempt, RunScope, current_attempt
from .errors import (
    AlreadyDone,
    ApprovalRequired,
    DependencyUnavailable,
    Failed,
    LedgerApiError,
    OpledgerError,
    OutcomeUnknown,
    ProviderError,
    Refused,
    Rejected,
)
from .ledger import Ledger
from .wire import Decision, Operation

__all__ = [
    "AlreadyDone",
    "ApprovalRequired",
    "Attempt",
    "Decision",
    "DependencyUnavailable",
    "Failed",
    "Ledger",
    "LedgerApiError",
    "Operation",
    "OpledgerError",
    "OutcomeUnknown",
    "ProviderError",
    "Refused",
    "Rejected",
    "RunScope",
    "current_attempt",
]
