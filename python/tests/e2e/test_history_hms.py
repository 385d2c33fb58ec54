"""history() and restore() against a real hms-mcp: what Claude's commands did to a file, and an
old version brought back (the TypeScript tool's test/e2e/history.test.ts, in Python)."""

from __future__ import annotations

import pytest

from hms_memory_tool import HolographicMemoryError, HolographicMemoryToolSync
from hms_memory_tool.core import InMemoryBackend
from tests.support.servers import StdioServer


def test_history_lists_changes_and_restore_brings_a_version_back(server: StdioServer) -> None:
    with HolographicMemoryToolSync.connect(command=server.command, args=server.args) as memory:
        memory.call({"command": "create", "path": "/memories/plan.md", "file_text": "ship v1\n"})
        memory.call(
            {
                "command": "str_replace",
                "path": "/memories/plan.md",
                "old_str": "v1",
                "new_str": "v2",
            }
        )
        memory.call(
            {"command": "rename", "old_path": "/memories/plan.md", "new_path": "/memories/road.md"}
        )

        changes = memory.history("/memories/plan.md")
        # Each change names the memory tool command that made it.
        assert [(c.op, c.path, c.command) for c in changes] == [
            ("move", "/memories/road.md", "rename"),
            ("update", "/memories/plan.md", "str_replace"),
            ("create", "/memories/plan.md", "create"),
        ]
        first = changes[2]
        assert first.from_path is None

        version = memory.restore("/memories/plan.md", first.version)
        assert version > changes[0].version
        view = memory.call({"command": "view", "path": "/memories/plan.md"})
        assert "ship v1" in view
        latest = memory.history("/memories/plan.md", 1)[0]
        assert (latest.op, latest.command) == ("create", "restore")

        with pytest.raises(HolographicMemoryError, match="has no version 99999") as missing:
            memory.restore("/memories/none.md", 99999)
        assert missing.value.code == "not_found"
        with pytest.raises(HolographicMemoryError) as bad_path:
            memory.history("/memories/../etc")
        assert bad_path.value.code == "invalid_path"


def test_history_needs_a_backend_that_keeps_one() -> None:
    memory = HolographicMemoryToolSync(InMemoryBackend())
    try:
        with pytest.raises(HolographicMemoryError, match=r"\(InMemoryBackend\) has none") as error:
            memory.history("/memories/a.md")
        assert error.value.code == "unsupported"
    finally:
        memory.close()
