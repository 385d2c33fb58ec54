"""Finding and starting real hms-mcp servers for the tests.

The server comes from ``HMS_MCP_BIN`` when set, else from the workspace build
(``packages/hms-mcp/dist/cli.js``, made by ``./scripts/setup.sh``). A missing server fails
the tests that need it, with a message saying how to build it; nothing is skipped. With
``HMS_TEST_DATABASE_URL`` set, servers run on PostgreSQL (see ``postgres.py``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .postgres import store_args

REPO = Path(__file__).resolve().parents[3]
WORKSPACE_BIN = REPO / "packages" / "hms-mcp" / "dist" / "cli.js"
SCRIPTED_MODEL_CLI = REPO / "packages" / "scripted-model" / "dist" / "cli.js"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("Node.js 22 or 24 must be on PATH to run hms-mcp")
    return found


def hms_mcp_command() -> list[str]:
    """The command line that starts hms-mcp (before its options)."""
    configured = os.environ.get("HMS_MCP_BIN")
    binary = Path(configured) if configured else WORKSPACE_BIN
    if not binary.exists():
        pytest.fail(
            f"hms-mcp not found at {binary}: build the workspace with ./scripts/setup.sh, or set "
            "HMS_MCP_BIN to an hms-mcp executable"
        )
    if binary.suffix in (".js", ".mjs", ".cjs"):
        return [node(), str(binary)]
    return [str(binary)]


@dataclass
class StdioServer:
    """How to start one hms-mcp over stdio on a data directory: pass ``command`` and ``args``
    to ``connect``. ``pid_file`` receives the server's process id once it starts."""

    data_dir: Path
    extra: Sequence[str] = ()
    pid_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.pid_file = self.data_dir.parent / f"{self.data_dir.name}.pid"

    @property
    def command(self) -> str:
        return "sh"

    @property
    def args(self) -> list[str]:
        # The shell writes its pid and then becomes the server (exec), so the pid is the
        # server's own.
        line = [*hms_mcp_command(), *store_args(self.data_dir), "--log-level", "warn"]
        return ["-c", 'echo $$ > "$0"; exec "$@"', str(self.pid_file), *line, *self.extra]

    def pid(self) -> int:
        return int(self.pid_file.read_text().strip())


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs: it exists and is not a zombie (exited, not yet reaped)."""
    # One read of /proc, no look before it: the parent may reap the process at any moment,
    # and then the read fails (ENOENT, or ESRCH while the entry is being torn down).
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return not stat.rsplit(") ", 1)[1].startswith("Z")


def wait_until_dead(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


@dataclass
class HttpServer:
    url: str
    process: subprocess.Popen[bytes]


@contextmanager
def http_server(data_dir: Path, token: str | None, *extra: str) -> Iterator[HttpServer]:
    """An hms-mcp over streamable HTTP on a free loopback port, stopped on exit."""
    env = {**os.environ}
    env.pop("HMS_MCP_TOKEN", None)
    if token is not None:
        env["HMS_MCP_TOKEN"] = token
    process = subprocess.Popen(
        [
            *hms_mcp_command(),
            "--transport",
            "http",
            "--port",
            "0",
            *store_args(data_dir),
            "--log-level",
            "info",
            *extra,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert process.stderr is not None
        url = None
        for raw in process.stderr:
            match = re.search(r'"url":"(http://[^"]+)"', raw.decode())
            if match:
                url = match.group(1)
                break
        assert url is not None, "hms-mcp did not say where it listens"
        yield HttpServer(url, process)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


@dataclass
class ScriptedModel:
    url: str
    process: subprocess.Popen[bytes]

    def requests(self) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.url}/requests", timeout=10) as response:
            data = json.loads(response.read())
        assert isinstance(data, list)
        return data


@contextmanager
def scripted_model(script: Mapping[str, Any], directory: Path) -> Iterator[ScriptedModel]:
    """The scripted stand-in for the Messages API (packages/scripted-model) on loopback."""
    if not SCRIPTED_MODEL_CLI.exists():
        pytest.fail(f"{SCRIPTED_MODEL_CLI} is missing: build the workspace with ./scripts/setup.sh")
    path = directory / "script.json"
    path.write_text(json.dumps(script))
    process = subprocess.Popen(
        [node(), str(SCRIPTED_MODEL_CLI), "--script", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = json.loads(line)["url"]
        yield ScriptedModel(url, process)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
