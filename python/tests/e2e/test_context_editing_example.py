"""examples/context-editing-python, run as a user would: offline against its own scripted
stand-in, and then as against the API, with ANTHROPIC_BASE_URL pointing at a stand-in this test
holds, so that the requests the example sent can be read: each carries the beta and the context
editing the API expects (the stand-in refuses any other with a 400, which would fail the run),
with the memory tool kept out of what is cleared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.servers import REPO, scripted_model

EXAMPLE = REPO / "examples" / "context-editing-python"

CONTEXT_MANAGEMENT = {
    "edits": [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 30_000},
            "keep": {"type": "tool_uses", "value": 3},
            "clear_at_least": {"type": "input_tokens", "value": 2_000},
            "exclude_tools": ["memory"],
        }
    ]
}


def _run(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ANTHROPIC_", "HMS_MCP_"))
    }
    env.update(CONTEXT_EDITING_DATA_DIR=str(tmp_path / "data"), **extra)
    return subprocess.run(
        [sys.executable, str(EXAMPLE / "context_editing.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.timeout(240)  # above the run's own 180 s limit (the suite's default is 120 s)
def test_it_runs_offline_and_claude_reads_its_notes_once_a_ticket_is_cleared(
    tmp_path: Path,
) -> None:
    completed = _run(tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    out = completed.stdout
    assert "runs OFFLINE against a scripted stand-in" in out
    assert "File created successfully at: /memories/customers/acme-corp.md" in out
    assert "File created successfully at: /memories/customers/globex.md" in out
    cleared = (
        "[context editing: the API cleared 1 tool use(s), 2600 input tokens, from this request]"
    )
    assert cleared in out
    assert (
        "     2\t- Invoices by email to billing@acme.example, never by post (T-101)."
        in out.split(cleared)[1]
    )
    assert out.endswith(
        "160B\t/memories\n160B\t/memories/customers/\n80B\t/memories/customers/acme-corp.md\n"
        "80B\t/memories/customers/globex.md\n"
    )


@pytest.mark.timeout(240)
def test_every_request_carries_the_context_editing_the_api_expects(tmp_path: Path) -> None:
    script = json.loads((EXAMPLE / "scripted-replies.json").read_text())
    with scripted_model(script, tmp_path) as model:
        completed = _run(tmp_path, ANTHROPIC_API_KEY="offline", ANTHROPIC_BASE_URL=model.url)
        requests = model.requests()
    assert completed.returncode == 0, completed.stderr
    assert "Talking to the Anthropic API" in completed.stdout
    assert len(requests) == len(script["turns"])
    for request in requests:
        assert "context-management-2025-06-27" in request["headers"]["anthropic-beta"]
        assert request["body"]["context_management"] == CONTEXT_MANAGEMENT
    # The excluded name is the memory tool's, as the first request declares it.
    assert {"type": "memory_20250818", "name": "memory"} in requests[0]["body"]["tools"]
