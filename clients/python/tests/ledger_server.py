"""The production server for the test session: `npm run serve` (scripts/serve.ts) on SQLite in a fresh data dir, the
bootstrap key, and the keys the tests use made with the repository's CLI (`npm run opledger -- ...`)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[3]
#: OPLEDGER_PYTHON_PORT moves the server, so two checkouts can run these tests side by side.
PORT = int(os.environ.get("OPLEDGER_PYTHON_PORT", "3204"))
BOOTSTRAP_KEY = "opl_python_bootstrap_key_0123456789abcdefghij"
OPERATOR_EMAIL = "operator@python.opledger.test"
START_TIMEOUT_S = 120
TSX = REPO_ROOT / "node_modules" / ".bin" / "tsx"


@dataclass
class LedgerServer:
    url: str
    data_dir: Path
    database_url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def cli(self, *args: str) -> str:
        """Runs `npm run opledger -- <args>` against this server's database; answers what it printed."""
        done = subprocess.run(
            [str(TSX), "scripts/opledger.ts", *args],
            cwd=REPO_ROOT,
            env={**os.environ, "DATABASE_URL": self.database_url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"opledger {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def create_key(self, name: str, scopes: str, owner: str | None = None) -> str:
        printed = self.cli("create-api-key", "--name", name, "--scopes", scopes, *(["--owner", owner] if owner else []))
        found = re.search(r"^\s+(\S+)\s*$", printed, re.MULTILINE)
        if not found:
            raise RuntimeError(f"no key in the CLI's answer:\n{printed}")
        return found.group(1)

    def stop(self) -> None:
        """SIGTERM to the server's process group, as an orchestrator stops it; SIGKILL if it lingers."""
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def start_server() -> LedgerServer:
    data_dir = REPO_ROOT / ".data" / f"python-{PORT}"
    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    url = f"http://127.0.0.1:{PORT}"
    database_url = f"file:{data_dir / 'opledger.db'}"
    env = {
        **os.environ,
        "PORT": str(PORT),
        "HOSTNAME": "127.0.0.1",
        "DATABASE_URL": database_url,
        "OPLEDGER_BOOTSTRAP_API_KEY": BOOTSTRAP_KEY,
        "OPLEDGER_DEMO": "off",
        # The recovery sweep turns a lost attempt UNKNOWN within a fifth of a second (the fencing test waits on it).
        "OPLEDGER_SWEEP_INTERVAL_MS": "200",
        "NEXTAUTH_SECRET": "opl_python_test_nextauth_secret_not_for_production_0123456789",
        "NEXTAUTH_URL": url,
    }
    log_path = data_dir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            ["npm", "run", "-s", "serve"],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = LedgerServer(url, data_dir, database_url, process, log_path)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited before it was healthy:\n{server.logs()}")
        try:
            if httpx.get(f"{url}/api/health", timeout=5).status_code == 200:
                return server
        except httpx.TransportError:
            pass  # Not listening yet.
        time.sleep(0.25)
    server.stop()
    raise RuntimeError(f"the server was not healthy on {url} after {START_TIMEOUT_S} s:\n{server.logs()}")
