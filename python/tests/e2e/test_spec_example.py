"""The spec's Python example runs as written, against the scripted model endpoint and a real
hms-mcp found on PATH as "hms-mcp"."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from hms_memory_tool import HolographicMemoryToolSync
from tests.support.servers import hms_mcp_command, scripted_model

EXAMPLE = Path(__file__).parents[1] / "support" / "spec_example.py"

SCRIPT = {
    "turns": [
        {"content": [{"type": "tool_use", "name": "memory",
                      "input": {"command": "view", "path": "/memories"}}]},
        {"content": [{"type": "tool_use", "name": "memory",
                      "input": {"command": "create", "path": "/memories/acme.md",
                                "file_text": "Acme Corp prefers email follow-ups.\n"}}]},
        {"content": [{"type": "text", "text": "I'll remember that."}]},
    ]
}  # fmt: skip


@pytest.mark.timeout(240)  # above the run's own 180 s limit (the suite's default is 120 s)
def test_the_spec_example_runs_as_written(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "hms-mcp"
    shim.write_text(f'#!/bin/sh\nexec {shlex.join(hms_mcp_command())} "$@"\n')
    shim.chmod(0o755)
    data_dir = tmp_path / "data"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HMS_MCP_DATA_DIR": str(data_dir),
        "HMS_MCP_LOG_LEVEL": "warn",
        "ANTHROPIC_API_KEY": "test-key",
    }
    env.pop("HMS_MCP_BIN", None)
    with scripted_model(SCRIPT, tmp_path) as model:
        env["ANTHROPIC_BASE_URL"] = model.url
        completed = subprocess.run(
            [sys.executable, str(EXAMPLE)], env=env, capture_output=True, timeout=180, check=False
        )
        assert completed.returncode == 0, completed.stderr.decode()
        requests = model.requests()
    assert len(requests) == 3
    assert {"type": "memory_20250818", "name": "memory"} in requests[0]["body"]["tools"]

    with HolographicMemoryToolSync.connect(
        command=str(shim), env={"HMS_MCP_DATA_DIR": str(data_dir)}
    ) as memory:
        assert memory.call({"command": "view", "path": "/memories/acme.md"}) == (
            "Here's the content of /memories/acme.md with line numbers:\n"
            "     1\tAcme Corp prefers email follow-ups."
        )
