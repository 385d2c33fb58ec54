"""The storage contract of the memory engine, mirrored 1:1 from ``@hms/memory-core``.

Any store that keeps versioned text under string keys can serve Claude's memory tool by
implementing :class:`MemoryBackend`; the engine does everything else (paths, directories,
strings, retries). The methods are those of the TypeScript ``MemoryBackend`` in snake_case.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from hms_memory_tool.paths import HmsError

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


@dataclass(frozen=True)
class FileChange:
    """One change of a memory file, as :meth:`HistoryOperations.changes` lists it."""

    op: Literal["create", "update", "move", "delete"]
    """What the change did. A move lists under both paths."""
    path: str
    """The file the change left behind (a move's destination)."""
    from_path: str | None
    """A move's source, else ``None``."""
    version: int
    """The version the change made (a delete: the version it deleted)."""
    bytes: int
    at: str
    """ISO 8601 UTC."""
    command: str | None
    """What made it (the server's tool, a client's command name, or ``restore``), if known."""
    actor: str | None
    """Who made it (the caller's token name), if known."""


class HistoryOperations(Protocol):
    """The history of memory files a backend may keep (the TypeScript ``history``); hms-mcp
    keeps every change as a version."""

    async def changes(self, path: str, limit: int | None = None) -> builtins.list[FileChange]:
        """The changes of the file at ``path``, newest first (at most ``limit``, default 100)."""
        ...

    async def restore(self, path: str, version: int) -> int:
        """Brings the file back to ``version`` (a deleted file comes back) as a new version,
        and returns that version. ``NOT_FOUND`` if the history holds no such version."""
        ...


@dataclass(frozen=True)
class RecallHit:
    """One memory file found by :meth:`RecallBackend.recall`."""

    path: str
    """The file's path, e.g. ``/memories/customers/acme.md``."""
    score: float
    """Relevance in (0, 1], higher is better, on an absolute scale: it does not depend on the
    other hits. In hms-mcp's lexical build, the hit's BM25 as a share of the most any memory
    could score for the query (0.45 for a memory of average length holding every query word
    once; above 0.2 a match on much of the query, below 0.1 likely noise; 0.001 for a hit
    holding only words most memories hold). In the hybrid build, 0.6 x that share + 0.4 x the
    calibrated embedding similarity (above 0.3 a strong match, below 0.2 likely noise). The
    two builds' scores are on different scales."""
    excerpt: str
    """A verbatim passage of the file around the match."""
    line_start: int
    """The first line of the range to view, 1-based; the range holds the excerpt."""
    line_end: int
    """The last line of the range to view, 1-based, inclusive."""
    updated_at: str | None = None
    """When the file last changed, ISO 8601 with a timezone (hms-mcp: UTC with milliseconds),
    if the backend knows; ``memory_recall`` shows it. Required of hits answering a time
    range."""


class MemoryBackendError(HmsError):
    """A backend refused an operation, for one of the reasons the engine acts on.

    - ``NOT_FOUND``: the file (for the tree operations: the path and everything under it) is
      absent.
    - ``EXISTS``: a create-if-absent (or a tree move's destination) found the path taken.
    - ``VERSION_CONFLICT``: the file exists but is not at the expected version.
    - ``TOO_LARGE``: the text is over the backend's limit (``limit``, when known).

    The refusals of a backend that offers :attr:`MemoryBackend.tree` (hms-mcp's
    ``PATH_CONFLICT`` and ``INVALID_ARGUMENT`` with details):

    - ``IS_DIRECTORY``: a create found files under the path (it is a directory).
    - ``UNDER_FILE``: the path would lie under a file; ``file`` names it (the shortest one).
    - ``INTO_ITSELF``: a tree move of a directory to a path inside it.
    - ``INVALID_KEY``: a tree move would give a file a path that is not valid; ``key`` names
      the first such new path, in code point order.

    Any other failure (network, disk, ...) is raised as whatever error it is; the engine lets
    it through unchanged. It is an :class:`~hms_memory_tool.paths.HmsError` but not a tool
    error: the engine turns the refusals it expects into
    :class:`~hms_memory_tool.core.MemoryToolError`.
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


class TreeOperations(Protocol):
    """The tree capability of a :class:`MemoryBackend` (the TypeScript ``tree``): a file or a
    whole directory deleted or moved in one atomic step. A backend that offers it also keeps
    the tree well formed on :meth:`MemoryBackend.create`."""

    async def delete_tree(self, path: str) -> int:
        """Deletes the file ``path`` (if any) and every file under ``path/`` in one step;
        returns the count; ``NOT_FOUND`` if there were none."""
        ...

    async def move_tree(self, source: str, destination: str) -> int:
        """Renames the file ``source`` (if any) to ``destination`` and every file under
        ``source/`` to the same place under ``destination/`` in one step; returns the count.
        The first failing check, in this order, decides the refusal, and nothing changes:
        ``NOT_FOUND`` (nothing to move), ``EXISTS`` (the same path), ``INTO_ITSELF`` (a
        directory into itself), ``EXISTS`` (the destination is a file or a directory),
        ``UNDER_FILE`` (with ``file``), ``INVALID_KEY`` (with ``key``). Moved files get new
        versions."""
        ...


@runtime_checkable
class MemoryBackend(Protocol):
    """Versioned storage of memory files (async).

    Keys are full memory paths (``/memories/...``) the engine has already validated.
    Directories are implicit: a directory exists while some key lies under it, so the backend
    stores files only. Each call is atomic on its own.

    One optional capability, :attr:`tree` (``None`` when not offered): with it a delete or a
    rename is one call and ``create`` keeps the tree well formed; without it the engine checks
    before a create, and lists and deletes, or copies then deletes, file by file.
    """

    @property
    def max_file_bytes(self) -> int | None:
        """The largest text stored, in UTF-8 bytes, or ``None`` for no limit of its own."""
        ...

    @property
    def tree(self) -> TreeOperations | None:
        """The tree operations, or ``None``. When offered, ``create`` also refuses a path with
        files under it (``IS_DIRECTORY``) or under a file (``UNDER_FILE``, with ``file``: the
        shortest such ancestor below ``/memories``), after ``EXISTS``, in its own atomic step;
        the engine then makes no checks of its own before a create."""
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
        if it does, ``TOO_LARGE`` if ``content`` is over the limit; with :attr:`tree`, also
        ``IS_DIRECTORY`` or ``UNDER_FILE``."""
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


@runtime_checkable
class RecallBackend(MemoryBackend, Protocol):
    """A :class:`MemoryBackend` that can also search its files (hms-mcp's can): what
    :meth:`~hms_memory_tool.core.MemoryEngine.recall` needs."""

    async def recall(
        self,
        query: str,
        k: int,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> builtins.list[RecallHit]:
        """The memory files most relevant to ``query``, best first, at most ``k``.

        With ``modified_after`` and/or ``modified_before`` (UTC with milliseconds, as
        ``2026-07-01T00:00:00.000Z``: the engine normalizes them), only files last changed at
        or after the one and before the other, chosen before the best ``k`` are taken, each
        hit with its ``updated_at``. The engine passes them only when Claude gave a range, and
        refuses hits outside it or without ``updated_at``."""
        ...
