"""watch() against real hms-mcp processes: one agent's tool hears of another's memory tool
commands on the same store, over stdio and over HTTP's event stream, in the same terms as the
TypeScript tool's watch() (its test/e2e/watch.test.ts)."""

from __future__ import annotations

import os
import signal
import socket
from contextlib import ExitStack
from pathlib import Path

import anyio
import pytest

from hms_memory_tool import HolographicMemoryError, HolographicMemoryTool
from hms_memory_tool.core import InMemoryBackend, MemoryChange
from hms_memory_tool.hms_backend import HmsConnectionError, Watch
from tests.support.servers import StdioServer, http_server, wait_until_dead

#: Only stops a hang: nothing here is timed.
HANG = 120


async def until(changes: Watch, seen: list[MemoryChange], op: str) -> None:
    """Reads ``changes`` into ``seen`` until a change with ``op`` arrives."""
    with anyio.fail_after(HANG):
        async for change in changes:
            seen.append(change)
            if change.op == op:
                return


async def agent_commands(writer: HolographicMemoryTool) -> None:
    """What the other agent does: a file made, one outside the directory, a rename."""
    await writer.call({"command": "create", "path": "/memories/notes/todo.md", "file_text": "a\n"})
    await writer.call({"command": "create", "path": "/memories/other.md", "file_text": "b\n"})
    await writer.call(
        {
            "command": "rename",
            "old_path": "/memories/notes/todo.md",
            "new_path": "/memories/notes/done.md",
        }
    )


@pytest.mark.anyio
async def test_watch_tells_another_process_commands_over_stdio(tmp_path: Path) -> None:
    data = tmp_path / "data"
    watching, writing = StdioServer(data), StdioServer(data)
    async with (
        HolographicMemoryTool.connect(command=watching.command, args=watching.args) as watcher,
        HolographicMemoryTool.connect(command=writing.command, args=writing.args) as writer,
    ):
        seen: list[MemoryChange] = []
        async with watcher.watch("/memories/notes") as changes:
            await agent_commands(writer)
            await until(changes, seen, "move")
            await writer.call({"command": "delete", "path": "/memories/notes/done.md"})
            await until(changes, seen, "delete")
        # A move is told once, by its destination and source; nothing outside the directory.
        assert [c for c in seen if c.op == "move"] == [
            MemoryChange("move", "/memories/notes/done.md", "/memories/notes/todo.md")
        ]
        assert seen[-1] == MemoryChange("delete", "/memories/notes/done.md", None)
        assert all(c.path.startswith("/memories/notes/") for c in seen)


@pytest.mark.anyio
async def test_watch_over_http_event_stream(tmp_path: Path) -> None:
    data = tmp_path / "data"
    writing = StdioServer(data)
    with http_server(data, None) as server:
        async with (
            HolographicMemoryTool.connect(url=server.url) as watcher,
            HolographicMemoryTool.connect(command=writing.command, args=writing.args) as writer,
        ):
            seen: list[MemoryChange] = []
            async with watcher.watch("/memories") as changes:
                await agent_commands(writer)
                await until(changes, seen, "move")
            assert (
                MemoryChange("move", "/memories/notes/done.md", "/memories/notes/todo.md") in seen
            )


def test_watch_needs_a_backend_that_can() -> None:
    memory = HolographicMemoryTool(InMemoryBackend())
    with pytest.raises(
        HolographicMemoryError,
        match=r"watch\(\) needs a backend that tells of changes, such as hms-mcp's "
        r"\(connect\(\)\); this tool's backend \(InMemoryBackend\) has none\.",
    ) as error:
        memory.watch("/memories")
    assert error.value.code == "unsupported"


@pytest.mark.anyio
async def test_watch_refuses_a_path_outside_memories(tmp_path: Path) -> None:
    server = StdioServer(tmp_path / "data")
    async with HolographicMemoryTool.connect(command=server.command, args=server.args) as memory:
        with pytest.raises(HolographicMemoryError, match="must be /memories or start with") as bad:
            memory.watch("/etc")
        assert bad.value.code == "invalid_path"


@pytest.mark.anyio
async def test_a_watch_ends_with_an_error_when_the_server_dies(tmp_path: Path) -> None:
    server = StdioServer(tmp_path / "data")
    async with HolographicMemoryTool.connect(command=server.command, args=server.args) as memory:
        # Leaving the block after the error closes the watch quietly: its subscription went
        # with the connection.
        async with memory.watch("/memories") as changes:
            os.kill(server.pid(), signal.SIGKILL)
            assert wait_until_dead(server.pid())
            # No change comes; the watch finds the connection gone (within KEEPALIVE_SECONDS)
            # and ends with the error every call now gets, instead of waiting forever.
            with anyio.fail_after(HANG), pytest.raises(HmsConnectionError) as caught:
                await anext(changes)
        assert caught.value.code == "CONNECTION_CLOSED"
        assert str(caught.value).endswith("The watch of /memories ended.")
        with pytest.raises(HmsConnectionError):
            await memory.call({"command": "view", "path": "/memories"})


@pytest.mark.anyio
async def test_a_watch_ends_when_its_tool_is_closed(tmp_path: Path) -> None:
    server = StdioServer(tmp_path / "data")
    seen: list[MemoryChange] = []
    told = anyio.Event()

    async def read_all(changes: Watch) -> None:
        async for change in changes:
            seen.append(change)
            told.set()

    with anyio.fail_after(HANG):
        # The task group waits for the reader: it ends once the tool is closed.
        async with (
            anyio.create_task_group() as readers,
            HolographicMemoryTool.connect(command=server.command, args=server.args) as memory,
        ):
            changes = memory.watch("/memories")
            await changes.start()
            readers.start_soon(read_all, changes)
            await memory.call({"command": "create", "path": "/memories/a.md", "file_text": "a"})
            await told.wait()
    assert seen == [MemoryChange("create", "/memories/a.md", None)]


def free_port() -> int:
    """A loopback port no one listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.anyio
async def test_a_watch_over_http_goes_on_after_the_server_restarts(tmp_path: Path) -> None:
    """The restarted server forgot the session and its subscriptions: the watch (which makes
    no call) finds out, opens a new session, says ``overflow`` (what changed in between was
    not told), and tells later changes as before, as the TypeScript tool does."""
    data = tmp_path / "data"
    port = ("--port", str(free_port()))
    writing = StdioServer(data)
    seen: list[MemoryChange] = []
    # The servers outlive the clients; the second takes over the first's port.
    with ExitStack() as servers:
        first = servers.enter_context(http_server(data, None, *port))
        async with (
            HolographicMemoryTool.connect(url=first.url) as watcher,
            watcher.watch("/memories/notes") as changes,
        ):
            first.process.terminate()
            assert first.process.wait(30) is not None
            second = servers.enter_context(http_server(data, None, *port))
            assert second.url == first.url
            await until(changes, seen, "overflow")
            assert seen == [MemoryChange("overflow", "/memories/notes", None)]
            async with HolographicMemoryTool.connect(
                command=writing.command, args=writing.args
            ) as writer:
                await writer.call(
                    {"command": "create", "path": "/memories/notes/after.md", "file_text": "a\n"}
                )
            await until(changes, seen, "create")
            assert seen[1:] == [MemoryChange("create", "/memories/notes/after.md", None)]
            # And the watcher's own calls work on its new session.
            view = await watcher.call({"command": "view", "path": "/memories/notes/after.md"})
            assert "a" in view
