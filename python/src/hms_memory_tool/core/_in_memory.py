"""The reference backend: files kept in a ``dict``, as ``@hms/memory-core``'s
``InMemoryBackend``."""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from hms_memory_tool.paths import utf8_byte_length

from ._backend import FileEntry, MemoryBackendError, MemoryVersion, StoredFile

#: The backend operations, as named to :class:`InMemoryBackend`'s ``before_operation``.
BackendOperation = Literal[
    "read", "list", "create", "update", "delete", "delete_prefix", "move", "move_prefix"
]

BeforeOperation = Callable[[BackendOperation, str], "Awaitable[None] | None"]


@dataclass
class _Record:
    content: str
    version: int


class InMemoryBackend:
    """A :class:`~hms_memory_tool.core.MemoryBackend` kept in a ``dict``.

    The reference implementation of the contract, and a backend for tests and for agents that
    need no persistence. Versions come from one counter for the whole store, so a version is
    never reused, even by a file deleted and created again.

    :param files: files to start with, path to text.
    :param max_file_bytes: largest text stored, in UTF-8 bytes (no limit by default).
    :param atomic_operations: whether to offer ``delete_prefix``, ``move`` and
        ``move_prefix`` (default ``True``); with ``False`` the engine's copy-then-delete
        fallbacks run instead.
    :param before_operation: called (and awaited, if it returns an awaitable) at the start of
        every operation, before it looks at the data; each operation then runs to completion
        without yielding, so it is atomic. Raising there makes the operation fail unchanged.
    """

    def __init__(
        self,
        *,
        files: Mapping[str, str] | None = None,
        max_file_bytes: int | None = None,
        atomic_operations: bool = True,
        before_operation: BeforeOperation | None = None,
    ) -> None:
        self._max_file_bytes = max_file_bytes
        self._records: dict[str, _Record] = {}
        self._last_version = 0
        self._hook = before_operation
        for path, content in (files or {}).items():
            self._last_version += 1
            self._records[path] = _Record(content, self._last_version)
        self.delete_prefix: Callable[[str], Awaitable[int]] | None = None
        self.move: Callable[[str, str, MemoryVersion | None], Awaitable[None]] | None = None
        self.move_prefix: Callable[[str, str], Awaitable[int]] | None = None
        if atomic_operations:
            self.delete_prefix = self._delete_all_under
            self.move = self._move_one
            self.move_prefix = self._move_all_under

    @property
    def max_file_bytes(self) -> int | None:
        return self._max_file_bytes

    async def read(self, path: str) -> StoredFile | None:
        await self._before("read", path)
        record = self._records.get(path)
        return StoredFile(record.content, record.version) if record else None

    async def list(self, prefix: str, limit: int | None = None) -> builtins.list[FileEntry]:
        await self._before("list", prefix)
        entries = [
            FileEntry(key, utf8_byte_length(self._records[key].content), self._records[key].version)
            for key in self._keys_under(prefix)
        ]
        return entries if limit is None else entries[:limit]

    async def create(self, path: str, content: str) -> MemoryVersion:
        await self._before("create", path)
        if path in self._records:
            raise MemoryBackendError("EXISTS", path)
        self._check_size(path, content)
        return self._store(path, content)

    async def update(
        self, path: str, content: str, expected_version: MemoryVersion
    ) -> MemoryVersion:
        await self._before("update", path)
        record = self._records.get(path)
        if record is None:
            raise MemoryBackendError("NOT_FOUND", path)
        if record.version != expected_version:
            raise MemoryBackendError(
                "VERSION_CONFLICT",
                path,
                f"VERSION_CONFLICT: {path} is at version {record.version}, "
                f"not the expected version {expected_version}",
            )
        self._check_size(path, content)
        return self._store(path, content)

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        await self._before("delete", path)
        record = self._records.get(path)
        if record is None:
            raise MemoryBackendError("NOT_FOUND", path)
        if expected_version is not None and record.version != expected_version:
            raise MemoryBackendError("VERSION_CONFLICT", path)
        del self._records[path]

    def snapshot(self) -> dict[str, str]:
        """Every file, path to text, in code point order of path."""
        return {key: self._records[key].content for key in self._keys_under("")}

    async def _delete_all_under(self, prefix: str) -> int:
        await self._before("delete_prefix", prefix)
        keys = self._keys_under(prefix)
        for key in keys:
            del self._records[key]
        return len(keys)

    async def _move_one(
        self, source: str, destination: str, expected_version: MemoryVersion | None = None
    ) -> None:
        await self._before("move", source)
        record = self._records.get(source)
        if record is None:
            raise MemoryBackendError("NOT_FOUND", source)
        if expected_version is not None and record.version != expected_version:
            raise MemoryBackendError("VERSION_CONFLICT", source)
        if destination in self._records:
            raise MemoryBackendError("EXISTS", destination)
        del self._records[source]
        self._store(destination, record.content)

    async def _move_all_under(self, source_prefix: str, destination_prefix: str) -> int:
        await self._before("move_prefix", source_prefix)
        if destination_prefix.startswith(source_prefix):
            raise ValueError(
                f"cannot move {source_prefix} into {destination_prefix}, which lies inside it"
            )
        keys = self._keys_under(source_prefix)
        if not keys:
            raise MemoryBackendError("NOT_FOUND", source_prefix)
        moves = [(key, destination_prefix + key[len(source_prefix) :]) for key in keys]
        for _, destination in moves:
            if destination in self._records:
                raise MemoryBackendError("EXISTS", destination)
        for source, destination in moves:
            record = self._records.pop(source)
            self._store(destination, record.content)
        return len(moves)

    def _store(self, path: str, content: str) -> int:
        self._last_version += 1
        self._records[path] = _Record(content, self._last_version)
        return self._last_version

    def _keys_under(self, prefix: str) -> builtins.list[str]:
        return sorted(key for key in self._records if key.startswith(prefix))

    def _check_size(self, path: str, content: str) -> None:
        if self._max_file_bytes is None:
            return
        size = utf8_byte_length(content)
        if size > self._max_file_bytes:
            raise MemoryBackendError(
                "TOO_LARGE",
                path,
                f"TOO_LARGE: {path} would be {size} bytes, over the limit of "
                f"{self._max_file_bytes}",
                limit=self._max_file_bytes,
            )

    async def _before(self, operation: BackendOperation, path: str) -> None:
        if self._hook is not None:
            result = self._hook(operation, path)
            if inspect.isawaitable(result):
                await result
