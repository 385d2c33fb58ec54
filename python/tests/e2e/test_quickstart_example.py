"""examples/quickstart-python runs offline (no ANTHROPIC_API_KEY) and shows the whole story."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.servers import REPO

QUICKSTART = REPO / "examples" / "quickstart-python" / "quickstart.py"


@pytest.mark.timeout(240)  # above the run's own 180 s limit (the suite's default is 120 s)
def test_the_python_quick_start_runs_offline_and_says_so() -> None:
    env = {**os.environ}
    env.pop("ANTHROPIC_API_KEY", None)
    completed = subprocess.run(
        [sys.executable, str(QUICKSTART)], env=env, capture_output=True, timeout=180, check=False
    )
    assert completed.returncode == 0, completed.stderr.decode()
    out = completed.stdout.decode()
    assert out.startswith("ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted")
    conversation_1, conversation_2 = out.split("=== Conversation 1 ===\n")[1].split(
        "=== Conversation 2"
    )
    assert 'Claude -> memory: {"command": "view", "path": "/memories"}' in conversation_1
    assert "File created successfully at: /memories/customers/acme-corp.md" in conversation_1
    assert "Claude -> memory_recall:" in conversation_2
    # The one file holds each query word once and, alone in the store, is of average length:
    # it scores 1 / (k1 + 1) of the query's BM25 ceiling, not 1 for being the best hit.
    assert (
        "1. /memories/customers/acme-corp.md (lines 1-2, score 0.4545, modified 20"
        in conversation_2
    )
    assert "     2\t- Prefers email follow-ups (not phone calls)." in conversation_2
    assert out.split("=== view /memories ===\n")[1].startswith(
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
        "items and node_modules:\n58B\t/memories\n58B\t/memories/customers/\n"
        "58B\t/memories/customers/acme-corp.md\n"
    )
    assert "error:" not in out
