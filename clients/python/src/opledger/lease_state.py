"""What both drivers' lease keepers share: the heartbeat they send, the release, and what a refused beat means."""

from __future__ import annotations

from .call_spec import CallSpec, operation_path
from .errors import LedgerApiError
from .steps import Send

#: A release is a heartbeat asking for the shortest lease the API allows (the API has no release).
RELEASE_LEASE_MS = 100


class LeaseState:
    def __init__(self, spec: CallSpec, operation_id: str, fence: int) -> None:
        #: `stale_fence` once a heartbeat was refused because another worker took the operation over.
        self.lost: str | None = None
        self.every = spec.limits.heartbeat_every
        self._lease_ms = spec.limits.lease_ms
        self._path = operation_path(operation_id, "heartbeat")
        self._fence = fence

    def beat(self) -> Send:
        return Send("POST", self._path, {"fence": self._fence, "leaseMs": self._lease_ms})

    def release(self) -> Send:
        """Lets the lease run out at once, so the next call of the same key need not wait for it."""
        return Send("POST", self._path, {"fence": self._fence, "leaseMs": RELEASE_LEASE_MS})

    def lost_by(self, problem: LedgerApiError) -> bool:
        """Whether a refused beat means the lease is gone; any other failure is tried again at the next beat."""
        if problem.code == "stale_fence":
            self.lost = "stale_fence"
        return self.lost is not None
