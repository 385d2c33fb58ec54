"""The largest file a server allows, in the text JSON escapes worst (control characters, 6 bytes
each), through the Python tool against a real hms-mcp over stdio and HTTP: stored, viewed and
exported whole, with the connection alive afterwards (issue 11)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path

import pytest
from anthropic.lib.tools import ToolError

from hms_memory_tool import HolographicMemoryTool
from hms_memory_tool.hms_backend import HmsMemoryBackend, connect_hms_backend
from hms_memory_tool.protocol import MAX_TEXT_BYTES_CAP
from tests.support.servers import StdioServer, http_server

pytestmark = pytest.mark.anyio


def _worst_case_text(size: int) -> str:
    """``size`` bytes of control characters and newlines: 6 bytes each as JSON."""
    return ("\x01\x02\x1f\n" * (size // 4 + 1))[:size]


@asynccontextmanager
async def _backend(transport: str, data_dir: Path) -> AsyncIterator[HmsMemoryBackend]:
    limit = ["--max-text-bytes", str(MAX_TEXT_BYTES_CAP)]
    with ExitStack() as stack:
        if transport == "http":
            served = stack.enter_context(http_server(data_dir, None, *limit))
            async with connect_hms_backend(url=served.url) as backend:
                yield backend
        else:
            server = StdioServer(data_dir, limit)
            async with connect_hms_backend(command=server.command, args=server.args) as backend:
                yield backend


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_largest_file_is_stored_viewed_and_exported(
    transport: str, tmp_path: Path
) -> None:
    text = _worst_case_text(MAX_TEXT_BYTES_CAP)
    path = "/memories/largest.txt"
    async with _backend(transport, tmp_path / "data") as backend:
        assert backend.max_file_bytes == MAX_TEXT_BYTES_CAP
        memory = HolographicMemoryTool(backend)
        created = await memory.execute({"command": "create", "path": path, "file_text": text})
        assert created == f"File created successfully at: {path}"
        view = await memory.execute({"command": "view", "path": path})
        assert view.startswith(f"Here's the content of {path} with line numbers:\n")
        page = await backend.call("export", {"prefix": "/memories/"})
        assert [(m["key"], m["bytes"], m["text"] == text) for m in page["memories"]] == [
            (path, MAX_TEXT_BYTES_CAP, True)
        ]
        stored = await backend.read(path)
        assert stored is not None
        assert stored.content == text
        # A huge old_str comes back as a few hundred characters, and the connection lives on.
        with pytest.raises(ToolError) as caught:
            await memory.execute(
                {"command": "str_replace", "path": path, "old_str": text[:-1] + "!", "new_str": ""}
            )
        assert len(str(caught.value)) < 1000
        assert "more characters)` did not appear verbatim" in str(caught.value)
        assert (await backend.stats())["max_text_bytes"] == MAX_TEXT_BYTES_CAP
