"""memory_recall against a real hms-mcp: memory files only, best first, and the tool's text
the same as format_recall's. The format, the input checks and recall in the engine are in
tests/test_recall.py."""

from __future__ import annotations

import asyncio

import pytest
from anthropic.lib.tools import ToolError

from hms_memory_tool import HmsMemoryBackend, HolographicMemoryTool, HolographicMemoryToolSync
from hms_memory_tool.core import NO_RECALL_HITS, MemoryToolError, format_recall
from tests.support.servers import StdioServer


def test_recall_finds_memory_files_only_best_first(server: StdioServer) -> None:
    with HolographicMemoryToolSync.connect(command=server.command, args=server.args) as memory:
        files = {
            "/memories/customers/acme.md": "# Acme Corp\nPrefers email follow-ups.\nNo calls.\n",
            "/memories/customers/globex.md": "# Globex\nPrefers phone calls in the morning.\n",
            "/memories/recipes/soup.md": "Tomato soup: tomatoes, basil, salt.\n",
            "/memories/notes.md": "Email the team about the offsite.\n",
        }
        for path, text in files.items():
            memory.call({"command": "create", "path": path, "file_text": text})
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)

        hits = memory.recall("acme email follow-ups", k=3)
        assert hits[0].path == "/memories/customers/acme.md"
        assert hits[0].line_start == 1
        assert hits[0].line_end >= 2
        assert "Prefers email follow-ups." in hits[0].excerpt
        assert len(hits) <= 3
        assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
        # Absolute scores: the file holding every rare query word scores well, though not 1...
        assert 0.3 < hits[0].score < 1
        assert all(0 < hit.score <= 1 for hit in hits)
        # ...and a query whose rare word no file holds scores low, even its best hit.
        weak = memory.recall("zeppelin email", k=3)
        assert weak
        assert weak[0].score < 0.1
        assert "/memories/recipes/soup.md" not in [hit.path for hit in hits]

        tool = memory.recall_tool()
        assert tool.name == "memory_recall"
        text = tool.call({"query": "acme email follow-ups", "k": 3})
        assert text == format_recall(hits)
        assert tool.call({"query": "zeppelin"}) == NO_RECALL_HITS
        with pytest.raises(ToolError, match="Invalid `k` parameter: 99"):
            tool.call({"query": "acme", "k": 99})


@pytest.mark.anyio
async def test_recall_ignores_memories_that_are_not_memory_files(server: StdioServer) -> None:
    async with HolographicMemoryTool.connect(command=server.command, args=server.args) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        # Another application's memory in the same store, about the same thing.
        await backend.call("remember", {"key": "crm/acme", "text": "Acme: email follow-ups"})
        assert await memory.recall("acme email") == []
        await memory.call(
            {"command": "create", "path": "/memories/acme.md", "file_text": "Acme: email\n"}
        )
        assert [hit.path for hit in await memory.recall("acme email")] == ["/memories/acme.md"]
        assert await memory.recall_tool().call({"query": "acme email"}) == format_recall(
            await memory.recall("acme email")
        )


@pytest.mark.anyio
async def test_recall_by_time_keeps_the_files_changed_in_the_range(server: StdioServer) -> None:
    async with HolographicMemoryTool.connect(command=server.command, args=server.args) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        create = {"command": "create", "file_text": "kestrel\n"}
        await memory.engine.execute({**create, "path": "/memories/old.md"})
        first = (await backend.call("get", {"key": "/memories/old.md"}))["updated_at"]
        # The second write must carry a later millisecond than the first (written before the
        # get above answered).
        await asyncio.sleep(0.002)
        await memory.engine.execute({**create, "path": "/memories/new.md"})
        second = (await backend.call("get", {"key": "/memories/new.md"}))["updated_at"]

        hits = await memory.recall("kestrel", modified_after=second)
        assert [(hit.path, hit.updated_at) for hit in hits] == [("/memories/new.md", second)]
        older = await memory.recall("kestrel", modified_before=second)
        assert [(hit.path, hit.updated_at) for hit in older] == [("/memories/old.md", first)]
        everything = await memory.recall("kestrel")
        assert sorted(hit.updated_at or "" for hit in everything) == [first, second]

        text = await memory.engine.recall({"query": "kestrel", "modified_before": second})
        assert text == format_recall(older, None, second)
        assert "1. /memories/old.md (line 1, score " in text
        assert text.endswith(f", modified {first})\n    kestrel")
        with pytest.raises(
            MemoryToolError, match=r"^Invalid `modified_after` parameter: 2026-07-01 "
        ):
            await memory.engine.recall({"query": "kestrel", "modified_after": "2026-07-01"})
