"""The storage contract of the memory engine, mirrored 1:1 from ``@hms/memory-core``.

Any store that keeps versioned text under string keys can serve Claude's memory tool by
implementing :class:`MemoryBackend`; the engine does everything else (paths, directories,
strings, retries). The methods are those of the TypeScript ``MemoryBackend`` in snake_case.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

#: A version token. The engine never does arithmetic on it or orders it; it only hands back
#: what the backend gave it, for a compare-and-set. hms-mcp uses integers.
MemoryVersion: TypeAlias = int | str

#: Why a backend refused an operation: the four codes of hms-mcp, then the four refusals of a
#: backend that keeps the tree well formed (see :class:`MemoryBackendError`).
MemoryBackendErrorCode = Literal[
    "NOT_FOUND",
    "EXISTS",
    "VERSION_CONFLICT",
    "TOO_LARGE",
    "IS_DIRECTORY",
    "UNDER_FILE",
    "INTO_ITSELF",
    "INVALID_KEY",
]


@dataclass(frozen=True)
class StoredFile:
    """A file as read: its whole text and the version that text has."""

    content: str
    version: MemoryVersion


@dataclass(frozen=True)
class FileEntry:
    """One file found by :meth:`MemoryBackend.list`."""

    path: str
    """The full key, e.g. ``/memories/projects/acme.md``."""
    bytes: int
    """The UTF-8 byte length of the file's text."""
    version: MemoryVersion


class MemoryBackendError(Exception):
    """A backend refused an operation, for one of the reasons the engine acts on.

    - ``NOT_FOUND``: the file (or, for a prefix move, any file under the prefix; for the tree
      operations, the path and everything under it) is absent.
    - ``EXISTS``: a create-if-absent (or a move destination) found the path taken.
    - ``VERSION_CONFLICT``: the file exists but is not at the expected version.
    - ``TOO_LARGE``: the text is over the backend's limit (``limit``, when known).

    The refusals of a backend that keeps the tree well formed (``enforces_tree``,
    ``move_tree``; hms-mcp's ``PATH_CONFLICT`` and ``INVALID_ARGUMENT`` with details):

    - ``IS_DIRECTORY``: a create found files under the path (it is a directory).
    - ``UNDER_FILE``: the path would lie under a file; ``file`` names it (the shortest one).
    - ``INTO_ITSELF``: a tree move of a directory to a path inside it.
    - ``INVALID_KEY``: a tree move would give a file a path that is not valid; ``key`` names
      the first such new path, in code point order.

    Any other failure (network, disk, ...) is raised as whatever error it is; the engine lets
    it through unchanged.
    """

    code: MemoryBackendErrorCode
    path: str
    limit: int | None
    file: str | None
    key: str | None

    def __init__(
        self,
        code: MemoryBackendErrorCode,
        path: str,
        message: str | None = None,
        *,
        limit: int | None = None,
        file: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message if message is not None else f"{code}: {path}")
        self.code = code
        self.path = path
        self.limit = limit
        self.file = file
        self.key = key


def is_memory_backend_error(error: object, code: MemoryBackendErrorCode | None = None) -> bool:
    """Whether ``error`` is a :class:`MemoryBackendError` (with ``code``, if given)."""
    return isinstance(error, MemoryBackendError) and (code is None or error.code == code)


@runtime_checkable
class MemoryBackend(Protocol):
    """Versioned storage of memory files (async).

    Keys are full memory paths (``/memories/...``) the engine has already validated.
    Directories are implicit: a directory exists while some key lies under it, so the backend
    stores files only. Each call is atomic on its own.

    Optional atomic operations: a backend may also have ``delete_prefix``, ``move`` and
    ``move_prefix`` (see :class:`AtomicOperations`), and the tree capabilities
    ``enforces_tree``, ``delete_tree`` and ``move_tree`` (see :class:`TreeOperations`);
    absent or ``None`` means not offered, and the engine then checks before a create, and
    lists and deletes, or copies and deletes, file by file. The engine prefers the tree
    operations to the older ones when a backend offers both.
    """

    @property
    def max_file_bytes(self) -> int | None:
        """The largest text stored, in UTF-8 bytes, or ``None`` for no limit of its own."""
        ...

    async def read(self, path: str) -> StoredFile | None:
        """The file at ``path``, or ``None`` if there is none."""
        ...

    async def list(self, prefix: str, limit: int | None = None) -> Sequence[FileEntry]:
        """Every file whose key starts with ``prefix`` (a plain string prefix), at any depth,
        in code point order of key; with ``limit``, at most that many (the first ones)."""
        ...

    async def create(self, path: str, content: str) -> MemoryVersion:
        """Stores a new file only if ``path`` does not exist; returns its version, which must
        differ from every version ``path`` had before (even after a delete). Raises ``EXISTS``
        if it does, ``TOO_LARGE`` if ``content`` is over the limit; with ``enforces_tree``,
        also ``IS_DIRECTORY`` or ``UNDER_FILE``."""
        ...

    async def update(
        self, path: str, content: str, expected_version: MemoryVersion
    ) -> MemoryVersion:
        """Compare-and-set: replaces the text only if the file is at ``expected_version``;
        returns a version the file never had before. Raises ``VERSION_CONFLICT``,
        ``NOT_FOUND`` or ``TOO_LARGE``."""
        ...

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        """Deletes one file, if given only at ``expected_version``. Raises ``NOT_FOUND`` or
        ``VERSION_CONFLICT``."""
        ...


class AtomicOperations(Protocol):
    """The optional atomic operations of a :class:`MemoryBackend`."""

    delete_prefix: Callable[[str], Awaitable[int]] | None
    """Deletes every file whose key starts with the prefix in one step; returns the count."""
    move: Callable[[str, str, MemoryVersion | None], Awaitable[None]] | None
    """Renames one file (``NOT_FOUND``, ``VERSION_CONFLICT``, ``EXISTS``)."""
    move_prefix: Callable[[str, str], Awaitable[int]] | None
    """Renames every file under a prefix in one step (``NOT_FOUND``, ``EXISTS``)."""


class TreeOperations(Protocol):
    """The optional tree capabilities of a :class:`MemoryBackend` (those of the TypeScript
    ``enforcesTree``, ``deleteTree`` and ``moveTree``)."""

    enforces_tree: bool
    """``create`` keeps the tree well formed in its own atomic step: after ``EXISTS``, it
    refuses a path with files under it (``IS_DIRECTORY``) or under a file (``UNDER_FILE``, with
    ``file``: the shortest such ancestor below ``/memories``). The engine then makes no checks
    of its own before a create."""
    delete_tree: Callable[[str], Awaitable[int]] | None
    """Deletes the file ``path`` (if any) and every file under ``path/`` in one step; returns
    the count; ``NOT_FOUND`` if there were none."""
    move_tree: Callable[[str, str], Awaitable[int]] | None
    """Renames the file ``source`` (if any) to ``destination`` and every file under
    ``source/`` to the same place under ``destination/`` in one step; returns the count. The
    first failing check, in this order, decides the refusal, and nothing changes:
    ``NOT_FOUND`` (nothing to move), ``EXISTS`` (the same path), ``INTO_ITSELF`` (a directory
    into itself), ``EXISTS`` (the destination is a file or a directory), ``UNDER_FILE`` (with
    ``file``), ``INVALID_KEY`` (with ``key``). Moved files get new versions."""
