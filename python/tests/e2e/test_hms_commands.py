"""The tool against a real hms-mcp process, driven with the SDK's own command types: path
traversal refused by every command, directory moves and conflicts, long-file paging and the
size limit."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from anthropic.lib.tools import ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool import HmsMemoryBackend, HolographicMemoryTool, MemoryBackendError
from hms_memory_tool.paths import check_memory_path
from tests.support.servers import StdioServer

pytestmark = pytest.mark.anyio

View = BetaMemoryTool20250818ViewCommand
Create = BetaMemoryTool20250818CreateCommand
StrReplace = BetaMemoryTool20250818StrReplaceCommand
Insert = BetaMemoryTool20250818InsertCommand
Delete = BetaMemoryTool20250818DeleteCommand
Rename = BetaMemoryTool20250818RenameCommand

#: Ways to reach outside /memories or to smuggle a path past a later decoder.
TRAVERSALS = [
    "/memories/../etc/passwd",
    "/memories/..",
    "/memories/.",
    "/memories/./notes.md",
    "/memories/a/../../etc/passwd",
    "/memories/a/./b",
    "../memories/x",
    "/etc/passwd",
    "memories/x",
    "~/memories/x",
    "file:///memories/x",
    "/memories_backup/x",
    "/Memories/x",
    "/memories\\..\\etc\\passwd",
    "/memories/..\\x",
    "/memories/%2e%2e/etc/passwd",
    "/memories/%2E%2E%2Fetc",
    "/memories/a%2fb",
    "/memories/%5c..%5cx",
    "/memories/%252e%252e/x",
    "/memories/%c0%ae%c0%ae/x",
    "/memories/\u2025/x",
    "/memories/\uff0e\uff0e/x",
    "/memories/a\uff0fb",
    "/memories/a\u2215b",
    "/memories/\u0000/x",
    "/memories/a\nb",
    "/memories/\u202egpj.exe",
    "/memories/\u200b..",
    "/memories/.hidden",
    "/memories/a/.../b",
    "/memories//etc",
    "/memories/",
    "",
]


def connect(
    server: StdioServer, **options: Any
) -> AbstractAsyncContextManager[HolographicMemoryTool]:
    return HolographicMemoryTool.connect(command=server.command, args=server.args, **options)


async def test_every_command_refuses_every_traversal_form_and_stores_nothing(
    server: StdioServer,
) -> None:
    assert len(TRAVERSALS) >= 20
    async with connect(server) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        await memory.create(Create(command="create", path="/memories/seed.md", file_text="seed\n"))
        refusals = 0
        for path in TRAVERSALS:
            error = check_memory_path(path)
            assert error is not None, path
            attempts: list[Callable[[str], Awaitable[str]]] = [
                lambda p: memory.view(View(command="view", path=p)),
                lambda p: memory.create(Create(command="create", path=p, file_text="pwned")),
                lambda p: memory.str_replace(
                    StrReplace(command="str_replace", path=p, old_str="seed", new_str="x")
                ),
                lambda p: memory.insert(
                    Insert(command="insert", path=p, insert_line=0, insert_text="x")
                ),
                lambda p: memory.delete(Delete(command="delete", path=p)),
                lambda p: memory.rename(
                    Rename(command="rename", old_path=p, new_path="/memories/moved.md")
                ),
                lambda p: memory.rename(
                    Rename(command="rename", old_path="/memories/seed.md", new_path=p)
                ),
            ]
            for attempt in attempts:
                with pytest.raises(ToolError) as caught:
                    await attempt(path)
                assert str(caught.value) == error.message
                refusals += 1
        stats = await backend.stats()
        assert stats["memories"] == 1
        assert (await backend.read("/memories/seed.md")) is not None
        assert [e.path for e in await backend.list("")] == ["/memories/seed.md"]
        assert refusals == 7 * len(TRAVERSALS)


async def seed_tree(memory: HolographicMemoryTool) -> None:
    files = {
        "/memories/projects/acme/notes.md": "Acme prefers email.\n",
        "/memories/projects/acme/people/bob.md": "Bob, CTO\n",
        "/memories/projects/other.md": "other\n",
        "/memories/inbox.md": "- call Acme\n",
    }
    for path, text in files.items():
        await memory.create(Create(command="create", path=path, file_text=text))


async def test_directory_moves_and_conflicts(server: StdioServer) -> None:
    async with connect(server) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        await seed_tree(memory)

        async def rename(old: str, new: str) -> str:
            return await memory.rename(Rename(command="rename", old_path=old, new_path=new))

        assert await rename("/memories/projects/acme", "/memories/clients/acme") == (
            "Successfully renamed /memories/projects/acme to /memories/clients/acme"
        )
        assert await memory.view(View(command="view", path="/memories")) == (
            "Here're the files and directories up to 2 levels deep in /memories, excluding "
            "hidden items and node_modules:\n"
            "47B\t/memories\n"
            "29B\t/memories/clients/\n"
            "29B\t/memories/clients/acme/\n"
            "12B\t/memories/inbox.md\n"
            "6B\t/memories/projects/\n"
            "6B\t/memories/projects/other.md"
        )
        bob = await backend.read("/memories/clients/acme/people/bob.md")
        assert bob is not None
        assert bob.content == "Bob, CTO\n"
        assert await backend.read("/memories/projects/acme/notes.md") is None

        conflicts = {
            ("/memories/clients", "/memories/clients/acme/sub"): (
                "Cannot rename /memories/clients to /memories/clients/acme/sub: a directory "
                "cannot be moved inside itself."
            ),
            ("/memories/clients/acme", "/memories/projects"): (
                "The destination /memories/projects already exists"
            ),
            ("/memories/inbox.md", "/memories/projects/other.md"): (
                "The destination /memories/projects/other.md already exists"
            ),
            ("/memories/clients/acme", "/memories/inbox.md/acme"): (
                "Cannot rename /memories/clients/acme to /memories/inbox.md/acme because "
                "/memories/inbox.md is a file, not a directory. Choose a destination that is "
                "not inside /memories/inbox.md."
            ),
            ("/memories/nothing", "/memories/x"): "The path /memories/nothing does not exist",
            ("/memories", "/memories/x"): "Cannot rename the /memories directory itself",
        }
        before = [(e.path, e.bytes) for e in await backend.list("/memories/")]
        for (old, new), message in conflicts.items():
            with pytest.raises(ToolError) as caught:
                await rename(old, new)
            assert str(caught.value) == message
        assert [(e.path, e.bytes) for e in await backend.list("/memories/")] == before

        assert await memory.delete(Delete(command="delete", path="/memories/clients")) == (
            "Successfully deleted /memories/clients"
        )
        assert [e.path for e in await backend.list("/memories/")] == [
            "/memories/inbox.md",
            "/memories/projects/other.md",
        ]


async def test_a_long_file_is_paged_at_line_boundaries(server: StdioServer) -> None:
    lines = [f"{n:04d} " + "abcdefghij"[: n % 10] for n in range(1, 3001)]
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) <= 32_768
    async with connect(server) as memory:
        await memory.create(Create(command="create", path="/memories/long.md", file_text=text))
        seen: list[str] = []
        view = View(command="view", path="/memories/long.md")
        notes = []
        while True:
            out = await memory.view(view)
            rows = out.split("\n")
            assert rows[0] == "Here's the content of /memories/long.md with line numbers:"
            body = rows[1:]
            if body[-1].startswith("[Output truncated"):
                notes.append(body.pop())
            assert sum(len(row) for row in body) + len(body) - 1 <= 16_000
            seen.extend(row.split("\t", 1)[1] for row in body)
            if len(seen) == len(lines):
                break
            start = len(seen) + 1
            assert notes[-1] == (
                f"[Output truncated after line {start - 1} of 3000 to stay within 16000 "
                f"characters. To continue, view /memories/long.md with view_range [{start}, -1].]"
            )
            view = View(command="view", path="/memories/long.md", view_range=[start, -1])
        assert seen == lines
        assert len(notes) >= 2
        last = await memory.view(
            View(command="view", path="/memories/long.md", view_range=[2999, 3000])
        )
        assert last.split("\n")[1:] == ["  2999\t2999 abcdefghi", "  3000\t3000 "]


async def test_the_size_limit_at_the_limit_one_byte_over_and_lowered(
    server: StdioServer,
) -> None:
    async with connect(server) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        assert memory.max_file_bytes == backend.max_file_bytes == 32_768
        full = "é" * 16_383 + "ab"  # 32 768 bytes
        assert await memory.create(
            Create(command="create", path="/memories/full.md", file_text=full)
        ) == ("File created successfully at: /memories/full.md")
        with pytest.raises(ToolError) as caught:
            await memory.create(
                Create(command="create", path="/memories/over.md", file_text=full + "c")
            )
        assert str(caught.value) == (
            "Cannot write /memories/over.md: the new content would be 32769 bytes, over the "
            "32768-byte limit for a memory file. Split the content across several smaller files."
        )
        with pytest.raises(ToolError, match="would be 32769 bytes, over the 32768-byte limit"):
            await memory.str_replace(
                StrReplace(
                    command="str_replace", path="/memories/full.md", old_str="ab", new_str="abc"
                )
            )
        # The server refuses too, for a client that skips the check.
        with pytest.raises(MemoryBackendError) as refused:
            await backend.create("/memories/raw.md", full + "c")
        assert refused.value.code == "TOO_LARGE"
        assert refused.value.limit == 32_768
        assert [e.path for e in await backend.list("/memories/")] == ["/memories/full.md"]
        stored = await backend.read("/memories/full.md")
        assert stored is not None
        assert stored.content == full

    async with connect(server, max_file_bytes=1000) as lowered:
        assert lowered.max_file_bytes == 1000
        await lowered.create(Create(command="create", path="/memories/k.md", file_text="k" * 1000))
        with pytest.raises(ToolError, match="would be 1001 bytes, over the 1000-byte limit"):
            await lowered.create(
                Create(command="create", path="/memories/l.md", file_text="l" * 1001)
            )

    async with connect(server, max_file_bytes=10**6) as higher:
        assert higher.max_file_bytes == 32_768  # a client can lower the limit, never raise it


async def test_the_server_limit_is_the_one_in_force(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    small = StdioServer(tmp_path_factory.mktemp("small") / "data", ["--max-text-bytes", "4096"])
    async with connect(small) as memory:
        assert memory.max_file_bytes == 4096
        with pytest.raises(ToolError, match="would be 4097 bytes, over the 4096-byte limit"):
            await memory.create(Create(command="create", path="/memories/a", file_text="a" * 4097))


async def test_a_create_a_delete_and_a_rename_take_one_mcp_call_each(
    server: StdioServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with connect(server) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        calls: list[str] = []
        call = backend.call

        async def counted(tool: str, arguments: Any) -> dict[str, Any]:
            calls.append(tool)
            return await call(tool, arguments)

        monkeypatch.setattr(backend, "call", counted)

        async def calls_of(command: dict[str, Any]) -> list[str]:
            calls.clear()
            await memory.call(command)
            return list(calls)

        create = {"command": "create", "path": "/memories/d/e/a.md", "file_text": "a\n"}
        assert await calls_of(create) == ["remember"]
        rename = {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/n"}
        assert await calls_of(rename) == ["move"]
        insert = {"command": "insert", "path": "/memories/n/e/a.md", "insert_line": 0}
        assert await calls_of({**insert, "insert_text": "x"}) == ["get", "remember"]
        assert await calls_of({"command": "delete", "path": "/memories/n"}) == ["forget"]
        assert list(await backend.list("/memories/")) == []


async def test_clear_all_memory_deletes_every_memory_file_and_nothing_else(
    server: StdioServer,
) -> None:
    async with connect(server) as memory:
        backend = memory.engine.backend
        assert isinstance(backend, HmsMemoryBackend)
        # An empty store is already clear.
        assert (
            await memory.clear_all_memory() == "Deleted every file and directory under /memories."
        )
        for path in ["/memories/a.md", "/memories/projects/x/y.md", "/memories/projects/z.md"]:
            await memory.create(Create(command="create", path=path, file_text="text\n"))
        await backend.call("remember", {"key": "notes/kept", "text": "not a memory file"})

        assert (
            await memory.clear_all_memory() == "Deleted every file and directory under /memories."
        )

        assert await backend.list("/memories/") == []
        assert await memory.view(View(command="view", path="/memories")) == (
            "Here're the files and directories up to 2 levels deep in /memories, excluding "
            "hidden items and node_modules:\n0B\t/memories"
        )
        kept = await backend.call("get", {"key": "notes/kept"})
        assert kept["text"] == "not a memory file"
