"""A full disk through the tool and a real hms-mcp over stdio: the data directory is a small
tmpfs, filled by memory files and then by a file of its own. Claude is told what happened
(STORAGE_FULL, the disk is full) and can still delete to make room, then write again."""

from __future__ import annotations

import pytest
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool import HolographicMemoryTool
from hms_memory_tool.hms_backend import HmsMcpError
from tests.support.servers import StdioServer
from tests.support.tmpfs import fill_disk, mounted_tmpfs

pytestmark = pytest.mark.anyio

Create = BetaMemoryTool20250818CreateCommand
Delete = BetaMemoryTool20250818DeleteCommand
View = BetaMemoryTool20250818ViewCommand


def text(i: int) -> str:
    """About 28 KB of words that differ from file to file (the full-text index grows too)."""
    return " ".join(f"w{(i * 7919 + j) % 100000}" for j in range(4000))


async def test_a_full_disk_is_reported_and_deleting_makes_room() -> None:
    with mounted_tmpfs(8) as disk:
        server = StdioServer(disk)
        async with HolographicMemoryTool.connect(
            command=server.command, args=server.args
        ) as memory:
            created = 0
            while True:
                try:
                    await memory.create(
                        Create(
                            command="create",
                            path=f"/memories/f{created}.md",
                            file_text=text(created),
                        )
                    )
                except HmsMcpError as error:
                    full = error
                    break
                created += 1
            assert created > 10
            assert full.code == "STORAGE_FULL"
            assert "the disk holding the store is full" in full.message
            assert "deleting still works" in full.message

            fill_disk(disk)
            with pytest.raises(HmsMcpError) as again:
                await memory.create(
                    Create(command="create", path="/memories/more.md", file_text=text(created))
                )
            assert again.value.code == "STORAGE_FULL"

            assert "deleted" in await memory.delete(
                Delete(command="delete", path="/memories/f0.md")
            )
            assert "deleted" in await memory.delete(
                Delete(command="delete", path="/memories/f1.md")
            )
            await memory.create(
                Create(command="create", path="/memories/small.md", file_text="room again")
            )
            assert "room again" in await memory.view(
                View(command="view", path="/memories/small.md")
            )
