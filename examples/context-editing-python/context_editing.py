"""A long-running agent: Claude's memory tool with context editing, in Python.

An agent that works for long fills its context with tool results (pages, logs, tickets) it no
longer needs. Context editing (``context_management`` with ``clear_tool_uses_20250919``) lets
the API drop the oldest of them once the context passes a size, while the memory tool keeps
what matters: Claude writes what it learns to /memories as it goes, and the memory tool's own
results are kept out of what is cleared (``exclude_tools``), so its notes stay in view. Here
Claude works through a queue of three support tickets (``read_ticket``, a local tool returning
each ticket with its attached log), saving each customer's preference; by the third ticket the
first one's text has been cleared, and Claude reads its notes instead.

With ANTHROPIC_API_KEY set it talks to the Anthropic API (with this short queue the context may
never reach the trigger, so nothing is cleared). Without it, it runs against a scripted
stand-in for the Messages API on loopback (packages/scripted-model), which checks every
request's context editing as the API takes it, and says so: Claude's replies and the API's
report of what it cleared are then pre-written, while the memory tool, hms-mcp and the store
are real.

Run it from the repository root after ./scripts/setup.sh:

    .tools/uv/bin/uv run --project python python examples/context-editing-python/context_editing.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic
from anthropic import beta_tool
from anthropic.types.beta import BetaContextManagementConfigParam

from hms_memory_tool import HolographicMemoryToolSync
from hms_memory_tool._bundled import node_runtime

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA_DIR = Path(os.environ.get("CONTEXT_EDITING_DATA_DIR", HERE / ".data"))
MODEL = os.environ.get("CONTEXT_EDITING_MODEL", "claude-sonnet-5-5")

#: Context editing needs this beta, named in the request's ``betas``.
CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"


def context_management(memory_tool_name: str) -> BetaContextManagementConfigParam:
    """Past 30,000 input tokens, clear the oldest tool uses (at least 2,000 tokens' worth, so
    that a cleared prompt cache is worth it), keeping the 3 most recent, and never the memory
    tool's: its results are Claude's own notes."""
    return {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 30_000},
                "keep": {"type": "tool_uses", "value": 3},
                "clear_at_least": {"type": "input_tokens", "value": 2_000},
                "exclude_tools": [memory_tool_name],
            }
        ]
    }


#: The support queue: each ticket is a customer's request buried in the log lines that came
#: with it, a few kilobytes like the pages and logs that fill a long-running agent's context.
TICKETS = {
    "T-101": (
        "Acme Corp",
        "Please send our invoices by email to billing@acme.example, never by post.",
    ),
    "T-102": ("Globex", "Outage reports must go to our on-call phone, +1 555 0100, not to email."),
    "T-103": ("Acme Corp", "Where is our March invoice? We have not received it."),
}


@beta_tool
def read_ticket(id: str) -> str:
    """Reads a support ticket by its id (T-101 ...), with the log attached to it."""
    if id not in TICKETS:
        raise ValueError(f"There is no ticket {id}; the queue holds {', '.join(TICKETS)}.")
    customer, request = TICKETS[id]
    lines = [f"Ticket {id} from {customer}", f"Request: {request}", "Attached log:"]
    lines += [
        f"2026-03-0{1 + i % 9}T10:{i % 60:02d}:00Z worker-{i % 7} heartbeat ok, "
        f"queue depth {i * 37 % 101}"
        for i in range(120)
    ]
    return "\n".join(lines)


def hms_mcp() -> tuple[str, list[str]]:
    """The hms-mcp to start: HMS_MCP_BIN, else this repository's build, else the bare
    ``hms-mcp`` (the project's node_modules, PATH, or the wheel's own)."""
    for candidate in (os.environ.get("HMS_MCP_BIN"), str(REPO / "packages/hms-mcp/dist/cli.js")):
        if candidate and Path(candidate).exists():
            if candidate.endswith(".js"):
                return node_runtime() or "node", [candidate]
            return candidate, []
    return "hms-mcp", []


@contextmanager
def messages_api() -> Iterator[anthropic.Anthropic]:
    """The Anthropic API with a key; otherwise the scripted stand-in, said plainly."""
    if os.environ.get("ANTHROPIC_API_KEY"):
        print(f"Talking to the Anthropic API (model {MODEL}).\n")
        yield anthropic.Anthropic()
        return
    cli = REPO / "packages/scripted-model/dist/cli.js"
    # The stand-in is a Node.js program too: it runs on the Node.js hms-mcp runs on.
    model = subprocess.Popen(
        [node_runtime() or "node", str(cli), "--script", str(HERE / "scripted-replies.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert model.stdout is not None
        url = json.loads(model.stdout.readline())["url"]
        print(
            "ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for "
            f"the Messages API at {url}.\nClaude's replies and what the API cleared are "
            "pre-written; the memory tool, hms-mcp and the store in .data/ are real, and the "
            "stand-in checks each request's context editing. Set ANTHROPIC_API_KEY to talk to "
            "Claude.\n"
        )
        yield anthropic.Anthropic(api_key="offline", base_url=url, max_retries=0)
    finally:
        model.terminate()
        model.wait()


def main() -> None:
    shutil.rmtree(DATA_DIR, ignore_errors=True)
    command, args = hms_mcp()
    with (
        messages_api() as client,
        HolographicMemoryToolSync.connect(
            command=command, args=[*args, "--data-dir", str(DATA_DIR)]
        ) as memory,
    ):
        prompt = (
            f"Work through the support queue, tickets {', '.join(TICKETS)}, one at a time. "
            "Save what you learn about each customer in your memory as you go: old ticket "
            "texts are cleared from the conversation once it grows long."
        )
        print(f"User: {prompt}")
        runner = client.beta.messages.tool_runner(
            model=MODEL,
            max_tokens=2048,
            betas=[CONTEXT_MANAGEMENT_BETA],
            context_management=context_management(memory.name),
            messages=[{"role": "user", "content": prompt}],
            tools=[memory, memory.recall_tool(), read_ticket],
        )
        for message in runner:
            cleared = message.context_management
            for edit in cleared.applied_edits if cleared else []:
                if edit.type == "clear_tool_uses_20250919":
                    print(
                        "[context editing: the API cleared "
                        f"{edit.cleared_tool_uses} tool use(s), "
                        f"{edit.cleared_input_tokens} input tokens, from this request]"
                    )
            for block in message.content:
                if block.type == "text":
                    print(f"Claude: {block.text}")
                elif block.type == "tool_use":
                    shown = json.dumps(block.input, ensure_ascii=False)
                    print(f"Claude -> {block.name}: {shown}")
            response = runner.generate_tool_call_response()  # the runner reuses these results
            for result in _tool_results(response):
                print(_summary(_text(result.get("content"))))
        print()
        print("=== view /memories ===")
        print(memory.call({"command": "view", "path": "/memories"}))


def _summary(result: str) -> str:
    """A tool result as printed: a ticket by its first two lines and its size, the rest whole."""
    lines = result.split("\n")
    if lines[0].startswith("Ticket "):
        lines = [*lines[:2], f"({len(lines)} lines, {len(result)} characters)"]
    return "\n".join(f"    {line}" for line in lines)


def _tool_results(response: Any) -> list[dict[str, Any]]:
    if not response or isinstance(response.get("content"), str):
        return []
    return [block for block in response["content"] if block.get("type") == "tool_result"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


if __name__ == "__main__":
    main()
