"""The commands of the round-trip tests, and a backend that records each call with the round
trip it belongs to: each command runs in the engine over an in-memory backend wrapped to record
every call, and calls issued together (with a task group in Python, Promise.all in TypeScript)
share one round trip. tests/support/ts_round_trips.mjs runs the same commands through the
TypeScript engine."""

from __future__ import annotations

import builtins
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.lowlevel

from hms_memory_tool.core import (
    FileEntry,
    InMemoryBackend,
    MemoryEngine,
    MemoryToolError,
    MemoryVersion,
    StoredFile,
    TreeOperations,
)

FILES = {"/memories/d/a.md": "a\n", "/memories/d/e/b.md": "b\n", "/memories/f.md": "f\n"}
FILES_WITH_G = {**FILES, "/memories/g": "g\n"}

COMMANDS: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/d"},
    {"command": "view", "path": "/memories/f.md"},
    {"command": "view", "path": "/memories/g"},
    {"command": "view", "path": "/memories/nope.md"},
    {"command": "view", "path": "/memories/nope"},
    {"command": "create", "path": "/memories/d/e/new.md", "file_text": "x"},
    {"command": "create", "path": "/memories/d", "file_text": "x"},
    {"command": "create", "path": "/memories/f.md/x/y.md", "file_text": "x"},
    {"command": "create", "path": "/memories/f.md", "file_text": "x"},
    {"command": "str_replace", "path": "/memories/f.md", "old_str": "f", "new_str": "F"},
    {"command": "str_replace", "path": "/memories/d", "old_str": "f", "new_str": "F"},
    {"command": "insert", "path": "/memories/nope.md", "insert_line": 0, "insert_text": "x"},
    {"command": "insert", "path": "/memories/f.md", "insert_line": 1, "insert_text": "x"},
    {"command": "delete", "path": "/memories/f.md"},
    {"command": "delete", "path": "/memories/d"},
    {"command": "delete", "path": "/memories/nope"},
    {"command": "rename", "old_path": "/memories/f.md", "new_path": "/memories/x/y.md"},
    {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/n"},
    {"command": "rename", "old_path": "/memories/nope", "new_path": "/memories/x"},
    {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/f.md"},
    {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/f.md/x"},
    {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/sub"},
]

CONFIGURATIONS: dict[str, tuple[dict[str, bool], dict[str, bool]]] = {
    # (TypeScript InMemoryBackend options, Python ones)
    "tree": ({}, {}),
    "no-tree": ({"tree": False}, {"tree": False}),
}

LATENCY_TURNS = 10


class Recording:
    """A backend that records each call of ``inner`` with its round trip: 1 + the latest round
    trip finished before the call started, so calls issued together share one."""

    def __init__(self, inner: InMemoryBackend) -> None:
        self._inner = inner
        self._finished = 0
        self.calls: builtins.list[tuple[int, str]] = []
        self._tree = None if inner.tree is None else RecordingTree(self, inner.tree)

    @property
    def max_file_bytes(self) -> int | None:
        return self._inner.max_file_bytes

    @property
    def tree(self) -> TreeOperations | None:
        return self._tree

    def _wrap(self, name: str, operation: Callable[..., Awaitable[Any]]) -> Any:
        async def call(*args: Any) -> Any:
            round_trip = self._finished + 1
            self.calls.append((round_trip, name))
            # A round trip lasts a few turns of the event loop, so calls issued together
            # (even through nested task groups) all start before any finishes.
            for _ in range(LATENCY_TURNS):
                await anyio.lowlevel.checkpoint()
            try:
                return await operation(*args)
            finally:
                self._finished = max(self._finished, round_trip)

        return call

    async def read(self, path: str) -> StoredFile | None:
        result: StoredFile | None = await self._wrap("read", self._inner.read)(path)
        return result

    async def list(self, prefix: str, limit: int | None = None) -> Sequence[FileEntry]:
        result: Sequence[FileEntry] = await self._wrap("list", self._inner.list)(prefix, limit)
        return result

    async def create(self, path: str, content: str) -> MemoryVersion:
        result: MemoryVersion = await self._wrap("create", self._inner.create)(path, content)
        return result

    async def update(self, path: str, content: str, version: MemoryVersion) -> MemoryVersion:
        update = self._wrap("update", self._inner.update)
        result: MemoryVersion = await update(path, content, version)
        return result

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        await self._wrap("delete", self._inner.delete)(path, expected_version)


class RecordingTree:
    """The tree operations of a :class:`Recording`, recorded the same way."""

    def __init__(self, recording: Recording, inner: TreeOperations) -> None:
        self._delete_tree = recording._wrap("delete_tree", inner.delete_tree)
        self._move_tree = recording._wrap("move_tree", inner.move_tree)

    async def delete_tree(self, path: str) -> int:
        result: int = await self._delete_tree(path)
        return result

    async def move_tree(self, source: str, destination: str) -> int:
        result: int = await self._move_tree(source, destination)
        return result


def scenarios() -> builtins.list[tuple[str, dict[str, Any]]]:
    return [(name, command) for name in CONFIGURATIONS for command in COMMANDS]


def run_python(configuration: str, command: dict[str, Any]) -> dict[str, Any]:
    options = CONFIGURATIONS[configuration][1]
    backend = Recording(InMemoryBackend(files=FILES_WITH_G, tree=options.get("tree", True)))
    result: dict[str, Any] = {}

    async def run() -> None:
        try:
            result["output"] = await MemoryEngine(backend).execute(command)
        except MemoryToolError as error:
            result["error"] = error.message

    anyio.run(run)
    result["calls"] = [list(call) for call in backend.calls]
    return result


def by_round_trip(calls: builtins.list[builtins.list[Any]]) -> builtins.list[builtins.list[str]]:
    """The calls of each round trip, in name order (calls issued together have no order)."""
    rounds = max((round_trip for round_trip, _ in calls), default=0)
    return [sorted(name for r, name in calls if r == n) for n in range(1, rounds + 1)]
