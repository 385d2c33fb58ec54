"""The reference backend: files kept in a ``dict``, as ``@hms/memory-core``'s
``InMemoryBackend``."""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from hms_memory_tool.paths import MEMORY_ROOT, check_memory_path, utf8_byte_length

from ._backend import FileEntry, MemoryBackendError, MemoryVersion, StoredFile, TreeOperations

#: The backend operations, as named to :class:`InMemoryBackend`'s ``before_operation``.
BackendOperation = Literal["read", "list", "create", "update", "delete", "delete_tree", "move_tree"]

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

    :param files: files to start with, path to text, stored as given (see :meth:`load`).
    :param max_file_bytes: largest text stored, in UTF-8 bytes (no limit by default).
    :param tree: whether to offer the tree operations (:attr:`tree`; ``create`` then keeps the
        tree well formed). With ``False`` the engine checks the tree itself and deletes and
        renames file by file, which is how to exercise that path (default ``True``).
    :param before_operation: called (and awaited, if it returns an awaitable) at the start of
        every operation, before it looks at the data; each operation then runs to completion
        without yielding, so it is atomic. Raising there makes the operation fail unchanged.
    """

    def __init__(
        self,
        *,
        files: Mapping[str, str] | None = None,
        max_file_bytes: int | None = None,
        tree: bool = True,
        before_operation: BeforeOperation | None = None,
    ) -> None:
        self._max_file_bytes = max_file_bytes
        self._records: dict[str, _Record] = {}
        self._last_version = 0
        self._hook = before_operation
        self.load(files or {})
        #: The tree operations, or ``None`` when built with ``tree=False``. Tests may replace
        #: it to play a backend whose tree operations misbehave.
        self.tree: TreeOperations | None = _InMemoryTree(self) if tree else None

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
        if self.tree is not None:
            if self._keys_under(path + "/"):
                raise MemoryBackendError(
                    "IS_DIRECTORY", path, f"IS_DIRECTORY: {path} is a directory"
                )
            self._refuse_under_file(path, path)
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

    def load(self, files: Mapping[str, str]) -> None:
        """Stores ``files`` (path to text) as given, each with a new version, replacing any
        file at the same path: no hook, no size or tree checks. For tests that start from a
        state the engine never makes but data written by another program can hold, such as a
        file and a directory of one name."""
        for path, content in files.items():
            self._store(path, content)

    def snapshot(self) -> dict[str, str]:
        """Every file, path to text, in code point order of path."""
        return {key: self._records[key].content for key in self._keys_under("")}

    async def _delete_with_all_under(self, path: str) -> int:
        await self._before("delete_tree", path)
        keys = self._tree_keys(path)
        if not keys:
            raise MemoryBackendError("NOT_FOUND", path)
        for key in keys:
            del self._records[key]
        return len(keys)

    async def _move_with_all_under(self, source: str, destination: str) -> int:
        await self._before("move_tree", source)
        # The checks of TreeOperations.move_tree, in its order.
        keys = self._tree_keys(source)
        if not keys:
            raise MemoryBackendError("NOT_FOUND", source)
        if destination == source:
            raise MemoryBackendError("EXISTS", source, f"EXISTS: {destination} is {source}")
        if any(key != source for key in keys) and destination.startswith(source + "/"):
            raise MemoryBackendError(
                "INTO_ITSELF", source, f"INTO_ITSELF: {destination} lies inside {source}"
            )
        if self._tree_keys(destination):
            raise MemoryBackendError("EXISTS", source, f"EXISTS: {destination} exists")
        self._refuse_under_file(source, destination)
        moves = [(key, destination + key[len(source) :]) for key in keys]
        for _, key in moves:
            error = check_memory_path(key)
            if error is not None:
                raise MemoryBackendError(
                    "INVALID_KEY", source, f"INVALID_KEY: {error.message}", key=key
                )
        for old_key, new_key in moves:
            record = self._records.pop(old_key)
            self._store(new_key, record.content)
        return len(moves)

    def _refuse_under_file(self, path: str, target: str) -> None:
        """Raises ``UNDER_FILE`` (about ``path``) if a proper ancestor of ``target`` below
        ``/memories`` is a file."""
        if not target.startswith(MEMORY_ROOT + "/"):
            return
        i = target.find("/", len(MEMORY_ROOT) + 1)
        while i != -1:
            ancestor = target[:i]
            if ancestor in self._records:
                raise MemoryBackendError(
                    "UNDER_FILE",
                    path,
                    f"UNDER_FILE: {target} would lie under the file {ancestor}",
                    file=ancestor,
                )
            i = target.find("/", i + 1)

    def _tree_keys(self, path: str) -> builtins.list[str]:
        """``path`` (if it is a file) and every key under ``path/``, in code point order."""
        under = self._keys_under(path + "/")
        return [path, *under] if path in self._records else under

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


class _InMemoryTree:
    """The tree operations of an :class:`InMemoryBackend`."""

    def __init__(self, backend: InMemoryBackend) -> None:
        self._backend = backend

    async def delete_tree(self, path: str) -> int:
        return await self._backend._delete_with_all_under(path)

    async def move_tree(self, source: str, destination: str) -> int:
        return await self._backend._move_with_all_under(source, destination)
