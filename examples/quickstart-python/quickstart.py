"""Quick start: Claude's memory tool served from Holographic Memory, in Python.

Two conversations, each with its own connection to an hms-mcp server that keeps the store in
.data/ beside this file:

1. "Remember that Acme Corp prefers email follow-ups." Claude views /memories and creates a
   file.
2. A new session asks how to follow up with Acme Corp. Claude finds the file with
   memory_recall, then views it.

Then it prints the final `view /memories` and a recall.

With ANTHROPIC_API_KEY set it talks to the Anthropic API. Without it, it runs against a
scripted stand-in for the Messages API on loopback (packages/scripted-model), and says so:
Claude's replies are then pre-written, while the memory tool, hms-mcp and the store are real.

Run it from the repository root after ./scripts/setup.sh:

    .tools/uv/bin/uv run --project python python examples/quickstart-python/quickstart.py

Options: --keep keeps the store of earlier runs (by default .data/ starts empty). Offline, the
pre-written replies then follow the store: if it already holds the file the first conversation
would create (a run before wrote it), Claude finds it and says so instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anthropic

from hms_memory_tool import HolographicMemoryToolSync
from hms_memory_tool._bundled import node_runtime
from hms_memory_tool.errors import HolographicMemoryError

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA_DIR = HERE / ".data"
MODEL = os.environ.get("QUICKSTART_MODEL", "claude-sonnet-5-5")


def hms_mcp() -> list[str]:
    """The hms-mcp to start: HMS_MCP_BIN, else this repository's build, else hms-mcp on PATH."""
    candidates = [os.environ.get("HMS_MCP_BIN"), str(REPO / "packages/hms-mcp/dist/cli.js")]
    for candidate in candidates:
        if candidate and Path(candidate).exists():
            return ["node", candidate] if candidate.endswith(".js") else [candidate]
    if shutil.which("hms-mcp"):
        return ["hms-mcp"]
    sys.exit("hms-mcp not found: run ./scripts/setup.sh first, or set HMS_MCP_BIN.")


def scripted_replies(keep: bool) -> Path:
    """The pre-written replies that fit the store. ``scripted-replies.json`` creates a file; on a
    kept store that already holds exactly that file, ``scripted-replies-kept.json`` finds it
    instead, so Claude never claims a save that the tool refused. A kept store holding another
    text at that path is refused: no pre-written reply could describe it truthfully."""
    fresh = HERE / "scripted-replies.json"
    if not keep:
        return fresh
    turns = json.loads(fresh.read_text(encoding="utf-8"))["turns"]
    created = next(
        block["input"]
        for turn in turns
        for block in turn["content"]
        if block["type"] == "tool_use" and block["input"].get("command") == "create"
    )
    path = created["path"]
    with connect() as memory:
        try:
            shown = memory.call({"command": "view", "path": path})
        except HolographicMemoryError as error:
            if error.code == "not_found":
                return fresh
            raise
    # The view's numbered lines, numbers removed, against the text the script would write.
    stored = "\n".join(line.split("\t", 1)[-1] for line in shown.split("\n")[1:])
    if stored == created["file_text"].removesuffix("\n"):
        return HERE / "scripted-replies-kept.json"
    sys.exit(
        f"--keep: the store in {DATA_DIR} holds a {path} that the scripted replies did not "
        "write, so they cannot follow it. Run without --keep (a new store), or set "
        "ANTHROPIC_API_KEY to talk to Claude."
    )


@contextmanager
def messages_api(keep: bool) -> Iterator[anthropic.Anthropic]:
    """The Anthropic API with a key; otherwise the scripted stand-in, said plainly."""
    if os.environ.get("ANTHROPIC_API_KEY"):
        print(f"Talking to the Anthropic API (model {MODEL}).\n")
        yield anthropic.Anthropic()
        return
    cli = REPO / "packages/scripted-model/dist/cli.js"
    script = scripted_replies(keep)
    # The stand-in is a Node.js program too: it runs on the Node.js hms-mcp runs on.
    model = subprocess.Popen(
        [node_runtime() or "node", str(cli), "--script", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert model.stdout is not None
        url = json.loads(model.stdout.readline())["url"]
        print(
            "ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for "
            f"the Messages API at {url}.\nClaude's replies below are pre-written; the memory "
            "tool, hms-mcp and the store in .data/ are real. Set ANTHROPIC_API_KEY to talk to "
            "Claude.\n"
        )
        yield anthropic.Anthropic(api_key="offline", base_url=url, max_retries=0)
    finally:
        model.terminate()
        model.wait()


def connect() -> HolographicMemoryToolSync:
    command, *args = hms_mcp()
    return HolographicMemoryToolSync.connect(
        command=command, args=[*args, "--data-dir", str(DATA_DIR), "--log-level", "warn"]
    )


def converse(client: anthropic.Anthropic, memory: HolographicMemoryToolSync, prompt: str) -> None:
    """One conversation through the SDK's tool runner, printed as it happens."""
    print(f"User: {prompt}")
    runner = client.beta.messages.tool_runner(
        model=MODEL,
        max_tokens=1024,
        messages=[{"role": "user", "content": prompt}],
        tools=[memory, memory.recall_tool()],
    )
    for message in runner:
        for block in message.content:
            if block.type == "text":
                print(f"Claude: {block.text}")
            elif block.type == "tool_use":
                print(f"Claude -> {block.name}: {json.dumps(block.input, ensure_ascii=False)}")
        response = runner.generate_tool_call_response()  # the runner reuses these results
        for result in _tool_results(response):
            label = "error" if result.get("is_error") else "result"
            print(f"  {label}:\n" + _indent(_text(result.get("content"))))
    print()


def _tool_results(response: Any) -> list[dict[str, Any]]:
    if not response or isinstance(response.get("content"), str):
        return []
    return [block for block in response["content"] if block.get("type") == "tool_result"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.split("\n"))


def main() -> None:
    keep = "--keep" in sys.argv[1:]
    if not keep:
        shutil.rmtree(DATA_DIR, ignore_errors=True)
    with messages_api(keep) as client:
        print("=== Conversation 1 ===")
        with connect() as memory:
            converse(client, memory, "Remember that Acme Corp prefers email follow-ups.")

        print("=== Conversation 2 (a new session, a new hms-mcp process, the same store) ===")
        with connect() as memory:
            converse(client, memory, "How should I follow up with Acme Corp?")

            print("=== view /memories ===")
            print(memory.call({"command": "view", "path": "/memories"}))
            print()
            print('=== memory_recall {"query": "how to contact Acme"} ===')
            print(memory.recall_tool().call({"query": "how to contact Acme"}))


if __name__ == "__main__":
    main()
