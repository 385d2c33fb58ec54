"""``connect(command="hms-mcp")`` as the spec writes it, from a plain ``python`` whose PATH has
no hms-mcp (an application run by its venv's python, not from an activated shell; a project
that installed hms-mcp with npm): the bare name is the hms-mcp :func:`find_server` finds, here
the project's ``node_modules/hms-mcp`` (a symlink to the workspace's build, as pnpm and
``npm link`` make), and the application's stderr stays quiet unless it asks for the log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.servers import WORKSPACE_BIN, node

PROGRAM = """
import sys
from hms_memory_tool import HolographicMemoryToolSync
args = ["--data-dir", sys.argv[1]]
with HolographicMemoryToolSync.connect(command="hms-mcp", args=args) as memory:
    memory.call({"command": "create", "path": "/memories/found.md", "file_text": "found\\n"})
    print(memory.call({"command": "view", "path": "/memories/found.md"}))
"""


def _project(tmp_path: Path) -> Path:
    """A project with hms-mcp in node_modules, and a folder inside it to run from."""
    project = tmp_path / "project"
    (project / "node_modules").mkdir(parents=True)
    (project / "node_modules" / "hms-mcp").symlink_to(WORKSPACE_BIN.parent.parent)
    inside = project / "src" / "agents"
    inside.mkdir(parents=True)
    return inside


def _run(cwd: Path, data: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("HMS_MCP_")}
    # Node.js for the server, the system's programs; no hms-mcp anywhere on it.
    env["PATH"] = os.pathsep.join([str(Path(node()).parent), "/usr/bin", "/bin"])
    env.update(extra)
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, str(data)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def test_the_bare_command_starts_the_projects_hms_mcp_quietly(tmp_path: Path) -> None:
    completed = _run(_project(tmp_path), tmp_path / "data")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == (
        "Here's the content of /memories/found.md with line numbers:\n     1\tfound\n"
    )
    # The server's start-up lines stay out of the application's stderr.
    assert completed.stderr == ""


def test_the_log_is_passed_on_when_the_caller_asks_for_it(tmp_path: Path) -> None:
    completed = _run(_project(tmp_path), tmp_path / "data", HMS_MCP_LOG_LEVEL="info")
    assert completed.returncode == 0, completed.stderr
    assert '"msg":"hms-mcp serving on stdio"' in completed.stderr
