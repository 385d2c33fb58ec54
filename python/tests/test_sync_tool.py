"""The synchronous tool's own machinery, over the in-memory backend: calls from many threads,
from an event loop's worker threads, and a clear refusal (not a deadlock) from its own loop."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from hms_memory_tool import HmsConnectionError, HolographicMemoryToolSync, InMemoryBackend
from hms_memory_tool.core import BackendOperation


def test_many_threads_at_once() -> None:
    backend = InMemoryBackend(files={"/memories/log.md": ""})
    with HolographicMemoryToolSync(backend) as memory:

        def append(n: int) -> str:
            return memory.call(
                {
                    "command": "insert",
                    "path": "/memories/log.md",
                    "insert_line": 0,
                    "insert_text": f"{n}",
                }
            )

        with ThreadPoolExecutor(16) as pool:
            assert set(pool.map(append, range(200))) == {
                "The file /memories/log.md has been edited."
            }
        lines = backend.snapshot()["/memories/log.md"].split("\n")
        assert sorted(lines[:-1], key=int) == [str(n) for n in range(200)]


def test_calls_from_an_event_loops_worker_threads() -> None:
    with HolographicMemoryToolSync(InMemoryBackend(files={"/memories/a": "a\n"})) as memory:

        async def main() -> list[str]:
            loop = asyncio.get_running_loop()
            command = {"command": "view", "path": "/memories/a"}
            return list(
                await asyncio.gather(
                    *(loop.run_in_executor(None, memory.call, command) for _ in range(8))
                )
            )

        assert set(asyncio.run(main())) == {
            "Here's the content of /memories/a with line numbers:\n     1\ta"
        }


def test_a_call_from_its_own_loop_thread_fails_clearly_instead_of_deadlocking() -> None:
    memory: HolographicMemoryToolSync

    def reenter(operation: BackendOperation, path: str) -> None:
        if path == "/memories/trigger":
            memory.call({"command": "view", "path": "/memories"})  # runs on the tool's loop

    memory = HolographicMemoryToolSync(InMemoryBackend(before_operation=reenter))
    with memory, pytest.raises(RuntimeError, match="called from its own event loop thread"):
        memory.call({"command": "view", "path": "/memories/trigger"})


def test_after_close_calls_fail_and_the_thread_is_gone() -> None:
    memory = HolographicMemoryToolSync(InMemoryBackend())
    assert any(t.name == "hms-memory-tool" for t in threading.enumerate())
    memory.close()
    assert not any(t.name == "hms-memory-tool" for t in threading.enumerate())
    with pytest.raises(HmsConnectionError, match="The memory tool is closed"):
        memory.call({"command": "view", "path": "/memories"})


def test_clear_all_memory_empties_memories_from_the_sync_class() -> None:
    backend = InMemoryBackend(
        files={"/memories/a.md": "a\n", "/memories/dir/b.md": "b\n", "/memories/dir/sub/c": ""}
    )
    with HolographicMemoryToolSync(backend) as memory:
        assert memory.clear_all_memory() == "Deleted every file and directory under /memories."
        assert backend.snapshot() == {}
        assert memory.clear_all_memory() == "Deleted every file and directory under /memories."
