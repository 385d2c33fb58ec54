"""The SDK's tool runner end to end (client.beta.messages.tool_runner, sync and async) with
the tool over a real hms-mcp, against the scripted Messages API endpoint on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import pytest

from hms_memory_tool import HmsMemoryBackend, HolographicMemoryTool, HolographicMemoryToolSync
from hms_memory_tool.core import recall_tool_definition
from hms_memory_tool.paths import check_memory_path
from tests.support.servers import ScriptedModel, StdioServer, scripted_model

ACME = "/memories/customers/acme.md"
ACME_TEXT = "# Acme Corp\n- prefers email follow-ups, not calls\n"
TRAVERSAL = "/memories/../../etc/passwd"

SCRIPT: dict[str, Any] = {
    "turns": [
        {"content": [{"type": "tool_use", "id": "toolu_view", "name": "memory",
                      "input": {"command": "view", "path": "/memories"}}]},
        {"content": [
            {"type": "text", "text": "Saving that."},
            {"type": "tool_use", "id": "toolu_create", "name": "memory",
             "input": {"command": "create", "path": ACME, "file_text": ACME_TEXT}},
            {"type": "tool_use", "id": "toolu_escape", "name": "memory",
             "input": {"command": "create", "path": TRAVERSAL, "file_text": "root::0:0"}},
        ]},
        {"content": [{"type": "tool_use", "id": "toolu_recall", "name": "memory_recall",
                      "input": {"query": "how does Acme want follow-ups?", "k": 3}}]},
        {"content": [{"type": "text", "text": "Noted: Acme prefers email follow-ups."}]},
    ]
}  # fmt: skip

MESSAGES: list[Any] = [
    {"role": "user", "content": "Remember that Acme Corp prefers email follow-ups."}
]


def tool_results(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tool_result blocks of a request's last (user) message, by tool_use id, with their
    content as one string."""
    last = request["messages"][-1]
    assert last["role"] == "user"
    results = {}
    for block in last["content"]:
        if block.get("type") != "tool_result":
            continue
        content = block.get("content")
        if isinstance(content, list):
            content = "".join(part["text"] for part in content if part.get("type") == "text")
        results[block["tool_use_id"]] = {
            "content": content,
            "is_error": block.get("is_error", False),
        }
    return results


def check_conversation(model: ScriptedModel, final: Any, view_of_empty: str) -> None:
    bodies = [request["body"] for request in model.requests()]
    assert len(bodies) == 4
    # The runner declares both tools (later requests continue the same thread).
    assert {"type": "memory_20250818", "name": "memory"} in bodies[0]["tools"]
    assert recall_tool_definition() in bodies[0]["tools"]

    viewed = tool_results(bodies[1])
    assert viewed == {"toolu_view": {"content": view_of_empty, "is_error": False}}

    wrote = tool_results(bodies[2])
    assert wrote["toolu_create"] == {
        "content": f"File created successfully at: {ACME}",
        "is_error": False,
    }
    error = check_memory_path(TRAVERSAL)
    assert error is not None
    assert wrote["toolu_escape"] == {"content": error.message, "is_error": True}

    recalled = tool_results(bodies[3])["toolu_recall"]
    assert recalled["is_error"] is False
    assert recalled["content"].startswith("Found 1 memory file matching the query")
    assert f"\n\n1. {ACME} (lines 1-2, score " in recalled["content"]
    assert "    - prefers email follow-ups, not calls" in recalled["content"]

    assert final.content[-1].text == "Noted: Acme prefers email follow-ups."


EMPTY_VIEW = (
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
    "items and node_modules:\n0B\t/memories"
)


def test_the_sync_tool_runner_end_to_end(server: StdioServer, tmp_path: Path) -> None:
    with (
        scripted_model(SCRIPT, tmp_path) as model,
        HolographicMemoryToolSync.connect(command=server.command, args=server.args) as memory,
    ):
        client = anthropic.Anthropic(api_key="test-key", base_url=model.url, max_retries=0)
        runner = client.beta.messages.tool_runner(
            model="claude-sonnet-5-5",
            max_tokens=1024,
            messages=MESSAGES,
            tools=[memory, memory.recall_tool()],
        )
        final = runner.until_done()
        check_conversation(model, final, EMPTY_VIEW)
        # The traversal attempt stored nothing: the one file is the one Claude created.
        listing = memory.call({"command": "view", "path": "/memories"})
        assert listing.split("\n")[1:] == [
            "50B\t/memories",
            "50B\t/memories/customers/",
            f"50B\t{ACME}",
        ]


@pytest.mark.anyio
async def test_the_async_tool_runner_end_to_end(server: StdioServer, tmp_path: Path) -> None:
    with scripted_model(SCRIPT, tmp_path) as model:
        async with HolographicMemoryTool.connect(
            command=server.command, args=server.args
        ) as memory:
            client = anthropic.AsyncAnthropic(api_key="test-key", base_url=model.url, max_retries=0)
            runner = client.beta.messages.tool_runner(
                model="claude-sonnet-5-5",
                max_tokens=1024,
                messages=MESSAGES,
                tools=[memory, memory.recall_tool()],
            )
            final = await runner.until_done()
            check_conversation(model, final, EMPTY_VIEW)
            backend = memory.engine.backend
            assert isinstance(backend, HmsMemoryBackend)
            assert [entry.path for entry in await backend.list("")] == [ACME]
            assert (await backend.stats())["memories"] == 1
