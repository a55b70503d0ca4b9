"""A provider the tests run: an HTTP service whose every committed request is one effect, counted per account.

Each account answers from a script of steps, one per request (the last repeats): a status (2xx commits the effect,
anything else commits nothing), or "hang": commit the effect, then answer only after `hang` seconds (a provider that
applied the request and was too slow to say so). It never deduplicates by key: only the ledger stands between a
repeated call and a second effect.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Account:
    script: list[int | str]
    hang: float = 2.0
    delay: float = 0.0
    effects: int = 0
    #: (monotonic time, Idempotency-Key header) of every request, in arrival order.
    requests: list[tuple[float, str | None]] = field(default_factory=list)


class EffectProvider:
    def __init__(self) -> None:
        self._accounts: dict[str, Account] = {}
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                status, body, wait = provider._answer(self.path.rsplit("/", 1)[-1], self.headers.get("idempotency-key"))
                time.sleep(wait)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def account(self, name: str, script: list[int | str], *, hang: float = 2.0, delay: float = 0.0) -> str:
        """Sets up an account; answers the URL a tool function posts its effect to."""
        with self._lock:
            self._accounts[name] = Account(list(script), hang=hang, delay=delay)
        return f"{self.url}/effects/{name}"

    def effects(self, name: str) -> int:
        with self._lock:
            return self._accounts[name].effects

    def requests(self, name: str) -> list[tuple[float, str | None]]:
        with self._lock:
            return list(self._accounts[name].requests)

    def _answer(self, name: str, key: str | None) -> tuple[int, dict[str, object], float]:
        with self._lock:
            account = self._accounts[name]
            account.requests.append((time.monotonic(), key))
            step = account.script[min(len(account.requests), len(account.script)) - 1]
            if step == "hang" or (isinstance(step, int) and 200 <= step < 300):
                account.effects += 1
                answer = {"id": f"{name}-effect-{account.effects}"}
                return (200 if step == "hang" else int(step)), answer, account.hang if step == "hang" else account.delay
            return int(step), {"error": f"scripted {step}"}, account.delay

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
