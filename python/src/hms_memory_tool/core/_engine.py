"""The memory command engine: a 1:1 port of ``@hms/memory-core`` ``src/engine.ts``."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final, NoReturn

from hms_memory_tool.paths import (
    MEMORY_ROOT,
    MemoryPathError,
    ancestor_paths,
    base_name,
    check_memory_path,
    is_under,
    rebase_path,
    utf8_byte_length,
)

from . import _messages as messages
from ._backend import (
    FileEntry,
    MemoryBackend,
    MemoryBackendError,
    MemoryVersion,
    RecallBackend,
    RecallHit,
    StoredFile,
)
from ._commands import (
    Command,
    CreateCommand,
    DeleteCommand,
    InsertCommand,
    RenameCommand,
    StrReplaceCommand,
    ViewCommand,
    parse_command,
    parse_command_as,
    positive_option,
)
from ._concurrent import gather
from ._errors import MemoryToolError
from ._format import numbered_line, split_lines
from ._known_files import KnownFiles
from ._recall import (
    DEFAULT_RECALL_K,
    RECALL_BY_TIME_UNSUPPORTED,
    RecallInput,
    format_recall,
    hit_in_range,
    parse_recall_input,
)
from ._render import render_directory, render_file
from ._retry import DEFAULT_RETRY_POLICY, RETRY, RetryPolicy, _Retry, with_retries

#: Size limit of a memory file when neither the backend nor the options give one (32 KiB).
DEFAULT_MAX_FILE_BYTES: Final = 32_768
#: Longest ``view`` output before it is cut at a line boundary, in code points.
DEFAULT_MAX_VIEW_CHARS: Final = 16_000
#: Compare-and-set attempts per edit before giving up.
DEFAULT_CAS_ATTEMPTS: Final = DEFAULT_RETRY_POLICY.attempts

# What an edit computes from the current text: the new text, and the result to return once
# the new text is stored.
_Change = Callable[[str], "tuple[str, Callable[[], str]]"]


@dataclass
class _Copy:
    source: str
    destination: str
    source_version: MemoryVersion
    destination_version: MemoryVersion


class MemoryEngine:
    """Runs the memory tool's commands, and ``memory_recall``, against any
    :class:`MemoryBackend`.

    Every command method takes the command as the Anthropic SDK delivers it (a ``dict``
    decoded from JSON, or one of the SDK's ``BetaMemoryTool20250818*Command`` models) or as an
    already checked :data:`~hms_memory_tool.core.Command`. It is parsed once
    (:func:`~hms_memory_tool.core.parse_command`: every field checked before storage is
    touched), then run; the result string is returned, a refusal raised as
    :class:`MemoryToolError`.

    :param max_file_bytes: largest memory file in UTF-8 bytes; can only lower the backend's
        own ``max_file_bytes`` (with neither, :data:`DEFAULT_MAX_FILE_BYTES`).
    :param max_view_chars: longest ``view`` output, in code points.
    :param retry: how compare-and-set conflicts are retried (25 attempts, 2-200 ms jitter).
    """

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        max_file_bytes: int | None = None,
        max_view_chars: int | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.backend = backend
        self._own_max_file_bytes = positive_option("max_file_bytes", max_file_bytes)
        self._max_view_chars = (
            positive_option("max_view_chars", max_view_chars) or DEFAULT_MAX_VIEW_CHARS
        )
        self._retry = retry if retry is not None else DEFAULT_RETRY_POLICY
        positive_option("retry.attempts", self._retry.attempts)
        # Files this engine last read or wrote: an edit of one skips its read (see KnownFiles).
        self._known = KnownFiles()

    @property
    def max_file_bytes(self) -> int:
        """The size limit in force: the smaller of the backend's and the options' limits."""
        limits = [
            limit
            for limit in (self._own_max_file_bytes, self.backend.max_file_bytes)
            if limit is not None
        ]
        return min(limits) if limits else DEFAULT_MAX_FILE_BYTES

    @property
    def can_recall(self) -> bool:
        """Whether the backend can recall (a :class:`RecallBackend`), so that :meth:`recall`
        can run."""
        return isinstance(self.backend, RecallBackend)

    async def execute(self, command: object) -> str:
        """Runs any command, which its ``command`` field names."""
        return await self.run(parse_command(command))

    async def run(self, command: Command) -> str:
        """Runs a checked command."""
        if isinstance(command, ViewCommand):
            return await self._view(command)
        if isinstance(command, CreateCommand):
            return await self._create(command)
        if isinstance(command, StrReplaceCommand):
            return await self._str_replace(command)
        if isinstance(command, InsertCommand):
            return await self._insert(command)
        if isinstance(command, DeleteCommand):
            return await self._delete(command)
        return await self._rename(command)

    async def view(self, command: object) -> str:
        """``view``: a directory listing (2 levels) or a file's numbered lines."""
        return await self.run(parse_command_as("view", command))

    async def create(self, command: object) -> str:
        """``create``: a new file; refuses to overwrite, to replace a directory or to nest in
        a file."""
        return await self.run(parse_command_as("create", command))

    async def str_replace(self, command: object) -> str:
        """``str_replace``: replaces the one occurrence of ``old_str`` (anywhere, across
        lines)."""
        return await self.run(parse_command_as("str_replace", command))

    async def insert(self, command: object) -> str:
        """``insert``: inserts lines after line ``insert_line`` (0: at the top)."""
        return await self.run(parse_command_as("insert", command))

    async def delete(self, command: object) -> str:
        """``delete``: a file, or a directory with everything under it; never ``/memories``."""
        return await self.run(parse_command_as("delete", command))

    async def rename(self, command: object) -> str:
        """``rename``: moves a file or a whole directory to a path that does not exist yet."""
        return await self.run(parse_command_as("rename", command))

    async def recall(self, tool_input: object) -> str:
        """``memory_recall``: ``tool_input`` as Claude sent it (``query``, optional ``k``,
        ``modified_after``, ``modified_before``), checked in full by
        :func:`~hms_memory_tool.core.parse_recall_input`; returns the text of the memory files
        most relevant to the query (see :func:`~hms_memory_tool.core.format_recall`). Raises
        ``unsupported`` when the backend cannot recall, or cannot by time."""
        request = parse_recall_input(tool_input)
        hits = await self._recall_hits(request)
        return format_recall(hits, request.modified_after, request.modified_before)

    async def recall_hits(
        self,
        query: str,
        k: int = DEFAULT_RECALL_K,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> list[RecallHit]:
        """The memory files most relevant to ``query``, best first: at most ``k`` (1 to 50);
        with ``modified_after`` and/or ``modified_before`` (ISO 8601 times with a timezone),
        only files last changed at or after the one and before the other; all checked as
        :meth:`recall` checks them."""
        request = parse_recall_input(
            {
                "query": query,
                "k": k,
                "modified_after": modified_after,
                "modified_before": modified_before,
            }
        )
        return await self._recall_hits(request)

    async def _recall_hits(self, request: RecallInput) -> list[RecallHit]:
        backend = self.backend
        if not isinstance(backend, RecallBackend):
            raise MemoryToolError("unsupported", messages.RECALL_UNSUPPORTED)
        after, before = request.modified_after, request.modified_before
        if after is None and before is None:
            return list(await backend.recall(request.query, request.k))
        hits = list(
            await backend.recall(
                request.query, request.k, modified_after=after, modified_before=before
            )
        )
        if not all(hit_in_range(hit, after, before) for hit in hits):
            raise MemoryToolError("unsupported", RECALL_BY_TIME_UNSUPPORTED)
        return hits

    # ----- the commands, checked

    async def _view(self, command: ViewCommand) -> str:
        path, view_range = command.path, command.view_range
        if path == MEMORY_ROOT:
            if view_range is not None:
                raise MemoryToolError("invalid_argument", messages.view_range_on_directory(path))
            return render_directory(path, await self.backend.list(path + "/"), self._max_view_chars)
        # A name without an extension is usually a directory: then read and list at once (one
        # round trip to a remote backend instead of two). Either way the result is the same.
        listed: Sequence[FileEntry] | None = None
        if "." in base_name(path):
            file = await self.backend.read(path)
        else:
            file, listed = await gather(self.backend.read(path), self.backend.list(path + "/"))
        if file is not None:
            self._known.set(path, file)
            return render_file(path, file.content, view_range, self._max_view_chars)

        entries = listed if listed is not None else await self.backend.list(path + "/")
        if len(entries) == 0:
            raise MemoryToolError("not_found", messages.not_found(path))
        if view_range is not None:
            raise MemoryToolError("invalid_argument", messages.view_range_on_directory(path))
        return render_directory(path, entries, self._max_view_chars)

    async def _create(self, command: CreateCommand) -> str:
        path, text = command.path, command.file_text
        if path == MEMORY_ROOT:
            raise MemoryToolError("is_a_directory", messages.create_directory(path))
        self._check_size(path, text)
        if self.backend.tree is None:
            # Both checks at once: one round trip to a remote backend instead of two. (A
            # backend with the tree operations makes them in the create itself, with no race.)
            is_directory, file = await gather(self._is_directory(path), self._file_ancestor(path))
            if is_directory:
                raise MemoryToolError("is_a_directory", messages.create_directory(path))
            if file is not None:
                raise MemoryToolError("not_a_directory", messages.create_under_file(path, file))
        try:
            self._known.set(path, StoredFile(text, await self.backend.create(path, text)))
        except MemoryBackendError as error:
            if error.code == "EXISTS":
                raise MemoryToolError("already_exists", messages.already_exists(path)) from error
            if error.code == "IS_DIRECTORY":
                raise MemoryToolError("is_a_directory", messages.create_directory(path)) from error
            if error.code == "UNDER_FILE":
                blocking = await self._file_named_by(error, path)
                raise MemoryToolError(
                    "not_a_directory", messages.create_under_file(path, blocking)
                ) from error
            self._raise_write_error(error, path, text)
        return messages.created(path)

    async def _str_replace(self, command: StrReplaceCommand) -> str:
        path, old_str, new_str = command.path, command.old_str, command.new_str

        def change(content: str) -> tuple[str, Callable[[], str]]:
            starts = _occurrences(content, old_str)
            if not starts:
                raise MemoryToolError("no_match", messages.no_match(old_str, path))

            def line_of(index: int) -> int:
                return content.count("\n", 0, index) + 1

            if len(starts) > 1:
                raise MemoryToolError(
                    "multiple_matches",
                    messages.multiple_matches(old_str, [line_of(s) for s in starts]),
                )
            start = starts[0]
            updated = content[:start] + new_str + content[start + len(old_str) :]

            def result() -> str:
                lines = split_lines(updated)
                if not lines:
                    return f"{messages.REPLACED}\n{messages.EMPTIED_FILE}"
                # The snippet: the replacement's lines, with two lines of context either side.
                line = line_of(start)
                first = max(1, line - 2)
                last = min(len(lines), line + new_str.count("\n") + 2)
                snippet = [numbered_line(n, lines[n - 1]) for n in range(first, last + 1)]
                return f"{messages.REPLACED}\n" + "\n".join(snippet)

            return updated, result

        return await self._edit(path, change)

    async def _insert(self, command: InsertCommand) -> str:
        path, line, text = command.path, command.insert_line, command.insert_text

        def change(content: str) -> tuple[str, Callable[[], str]]:
            lines = split_lines(content)
            if line < 0 or line > len(lines):
                raise MemoryToolError("out_of_range", messages.insert_line(line, len(lines)))
            # One final LF of insert_text ends its last line; it does not add an empty line.
            inserted = (text[:-1] if text.endswith("\n") else text).split("\n")
            lines[line:line] = inserted
            return "\n".join(lines) + "\n", lambda: messages.inserted(path)

        return await self._edit(path, change)

    async def _delete(self, command: DeleteCommand) -> str:
        path = command.path
        if path == MEMORY_ROOT:
            raise MemoryToolError("forbidden", messages.DELETE_ROOT)
        self._known.forget(path)

        tree = self.backend.tree
        if tree is not None:
            # The file and everything under it in one atomic call.
            try:
                await tree.delete_tree(path)
            except MemoryBackendError as error:
                if error.code == "NOT_FOUND":
                    raise MemoryToolError("not_found", messages.delete_not_found(path)) from error
                raise
            return messages.deleted(path)

        file, is_directory = await gather(self.backend.read(path), self._is_directory(path))
        if file is None and not is_directory:
            raise MemoryToolError("not_found", messages.delete_not_found(path))
        if file is not None:
            await _ignore_not_found(self.backend.delete(path))
        if is_directory:
            for entry in await self.backend.list(path + "/"):
                await _ignore_not_found(self.backend.delete(entry.path))
        return messages.deleted(path)

    async def _rename(self, command: RenameCommand) -> str:
        source, destination = command.old_path, command.new_path
        if source == MEMORY_ROOT:
            raise MemoryToolError("forbidden", messages.RENAME_ROOT)
        if destination == MEMORY_ROOT:
            raise MemoryToolError("already_exists", messages.destination_exists(destination))
        self._known.forget(source)

        tree = self.backend.tree
        if tree is not None:
            # One atomic call that makes the checks below itself, in the same order.
            try:
                await tree.move_tree(source, destination)
            except MemoryBackendError as error:
                await self._raise_move_tree_error(error, source, destination)
            return messages.renamed(source, destination)

        # Every check's reads at once (one round trip to a remote backend), judged in order.
        file, entries, destination_file, destination_is_directory, file_ancestor = await gather(
            self.backend.read(source),
            self.backend.list(source + "/"),
            self.backend.read(destination),
            self._is_directory(destination),
            self._file_ancestor(destination),
        )
        if file is None and len(entries) == 0:
            raise MemoryToolError("not_found", messages.rename_not_found(source))
        if source == destination:
            raise MemoryToolError("already_exists", messages.destination_exists(destination))
        if entries and is_under(destination, source):
            raise MemoryToolError("forbidden", messages.rename_into_itself(source, destination))
        if destination_file is not None or destination_is_directory:
            raise MemoryToolError("already_exists", messages.destination_exists(destination))
        if file_ancestor is not None:
            raise MemoryToolError(
                "not_a_directory",
                messages.rename_under_file(source, destination, file_ancestor),
            )
        # Every file's new path must itself be valid (a deeper destination can break a limit).
        moves: list[tuple[str, str]] = []
        for entry in entries:
            try:
                moves.append((entry.path, rebase_path(entry.path, source, destination)))
            except MemoryPathError as error:
                raise MemoryToolError(
                    "invalid_path",
                    messages.rename_invalid_destination(source, destination, error.message),
                    path_rule=error.rule,
                ) from error

        if file is not None:
            await self._move_file(source, destination, file)
        if moves:
            await self._move_directory(source, destination, moves)
        return messages.renamed(source, destination)

    # -------------------------------------------------------------------------------------

    async def _edit(self, path: str, change: _Change) -> str:
        """Read-modify-write of one file with compare-and-set. ``change`` computes the new
        content from the current one (raising to refuse); a lost race re-reads and
        recomputes."""
        if path == MEMORY_ROOT:
            raise MemoryToolError("not_a_file", messages.not_a_file(path))
        known = self._known.get(path)
        if known is not None:
            done = await self._edit_known(path, known, change)
            if done is not None:
                return done

        async def attempt(_: int) -> str | _Retry:
            file = await self.backend.read(path)
            if file is None:
                if await self._is_directory(path):
                    raise MemoryToolError("not_a_file", messages.not_a_file(path))
                raise MemoryToolError("not_found", messages.not_found(path))
            updated, result = change(file.content)
            self._check_size(path, updated)
            try:
                version = await self.backend.update(path, updated, file.version)
                self._known.set(path, StoredFile(updated, version))
            except MemoryBackendError as error:
                # A conflict is a lost race; a missing file was deleted meanwhile: both re-read.
                if error.code in ("VERSION_CONFLICT", "NOT_FOUND"):
                    return RETRY
                self._raise_write_error(error, path, updated)
            return result()

        def exhausted() -> str:
            raise MemoryToolError("conflict", messages.conflict(path, self._retry.attempts))

        return await with_retries(self._retry, attempt, exhausted)

    async def _edit_known(self, path: str, known: StoredFile, change: _Change) -> str | None:
        """An edit computed from the remembered text and written at the remembered version:
        one round trip instead of two. ``None`` when that cannot be done (the change or the
        size check refuses it, or the file has changed since): the edit then reads the file,
        so every refusal is judged on the current text."""
        try:
            updated, result = change(known.content)
            self._check_size(path, updated)
        except MemoryToolError:
            return None
        try:
            version = await self.backend.update(path, updated, known.version)
        except MemoryBackendError:
            self._known.forget(path)
            return None
        self._known.set(path, StoredFile(updated, version))
        return result()

    async def _move_file(self, source: str, destination: str, file: StoredFile) -> None:
        """Copies one file, then deletes the original; undoes the copy if the original kept
        changing."""
        copy = await self._copy(source, destination, file)
        if await self._delete_original(copy):
            await _ignore_not_found(self.backend.delete(copy.destination, copy.destination_version))
            raise MemoryToolError("conflict", messages.conflict(source, self._retry.attempts))

    async def _move_directory(
        self, source: str, destination: str, moves: Sequence[tuple[str, str]]
    ) -> None:
        """Copies every file first; on any failure, deletes the copies made so far. Then
        deletes the originals, leaving in place (and reporting) those that kept changing."""
        copies: list[_Copy] = []
        try:
            for move_source, move_destination in moves:
                file = await self.backend.read(move_source)
                if file is None:
                    continue  # deleted meanwhile: nothing to move
                copies.append(await self._copy(move_source, move_destination, file))
        except Exception:
            for copy in copies:
                with contextlib.suppress(Exception):
                    await _ignore_not_found(
                        self.backend.delete(copy.destination, copy.destination_version)
                    )
            raise
        left: list[str] = []
        for copy in copies:
            if await self._delete_original(copy):
                await _ignore_not_found(
                    self.backend.delete(copy.destination, copy.destination_version)
                )
                left.append(copy.source)
        if left:
            raise MemoryToolError("conflict", messages.rename_partial(source, destination, left))

    async def _copy(self, source: str, destination: str, file: StoredFile) -> _Copy:
        """Copies one file of a rename (a create: never over a file another writer made at
        the destination since the checks)."""
        try:
            version = await self.backend.create(destination, file.content)
        except MemoryBackendError as error:
            if error.code == "EXISTS":
                raise MemoryToolError(
                    "already_exists", messages.destination_exists(destination)
                ) from error
            self._raise_write_error(error, destination, file.content)
        return _Copy(source, destination, file.version, version)

    async def _delete_original(self, copy: _Copy) -> bool:
        """Deletes the original of a copy, only at the version that was copied. If a writer
        changed it after the copy, the copy is brought up to date and the delete retried.
        Returns True if the original could not be deleted before attempts ran out."""

        async def attempt(_: int) -> bool | _Retry:
            try:
                await self.backend.delete(copy.source, copy.source_version)
                return False
            except MemoryBackendError as error:
                if error.code == "NOT_FOUND":
                    return False
                if error.code != "VERSION_CONFLICT":
                    raise
            latest = await self.backend.read(copy.source)
            if latest is None:
                return False
            copy.destination_version = await self.backend.update(
                copy.destination, latest.content, copy.destination_version
            )
            copy.source_version = latest.version
            return RETRY

        return await with_retries(self._retry, attempt, lambda: True)

    async def _is_directory(self, path: str) -> bool:
        """Whether some file lies under ``path``."""
        return len(await self.backend.list(path + "/", 1)) > 0

    async def _file_ancestor(self, path: str) -> str | None:
        """The highest proper ancestor of ``path`` (below ``/memories``) that is a file."""
        candidates = ancestor_paths(path)[1:]
        files = await gather(*(self.backend.read(candidate) for candidate in candidates))
        return next((c for c, f in zip(candidates, files, strict=True) if f is not None), None)

    async def _file_named_by(self, error: MemoryBackendError, path: str) -> str:
        """The file an ``UNDER_FILE`` refusal about ``path`` names; looked up (one more round
        trip) for a backend that did not name it. Raises the refusal if none is found."""
        if error.file is not None:
            return error.file
        file = await self._file_ancestor(path)
        if file is None:
            raise error
        return file

    def _check_size(self, path: str, content: str) -> None:
        size = utf8_byte_length(content)
        limit = self.max_file_bytes
        if size > limit:
            raise MemoryToolError("too_large", messages.too_large(path, size, limit))

    def _raise_write_error(self, error: MemoryBackendError, path: str, content: str) -> NoReturn:
        """Raises a refused write as the engine reports it (a size overflow), or as it is."""
        if error.code == "TOO_LARGE":
            limit = error.limit if error.limit is not None else self.max_file_bytes
            size = utf8_byte_length(content)
            raise MemoryToolError("too_large", messages.too_large(path, size, limit)) from error
        raise error

    async def _raise_move_tree_error(
        self, error: MemoryBackendError, source: str, destination: str
    ) -> NoReturn:
        """Raises a refusal of ``move_tree`` as the message of the check it stands for; the
        checks are those of the step-by-step rename, in the same order, so the strings are
        the same."""
        if error.code == "NOT_FOUND":
            raise MemoryToolError("not_found", messages.rename_not_found(source)) from error
        if error.code in ("EXISTS", "IS_DIRECTORY"):
            message = messages.destination_exists(destination)
            raise MemoryToolError("already_exists", message) from error
        if error.code == "INTO_ITSELF":
            message = messages.rename_into_itself(source, destination)
            raise MemoryToolError("forbidden", message) from error
        if error.code == "UNDER_FILE":
            blocking = await self._file_named_by(error, destination)
            message = messages.rename_under_file(source, destination, blocking)
            raise MemoryToolError("not_a_directory", message) from error
        if error.code == "INVALID_KEY" and error.key is not None:
            # The path rule the new path breaks, worded as the engine words it.
            path_error = check_memory_path(error.key)
            if path_error is not None:
                raise MemoryToolError(
                    "invalid_path",
                    messages.rename_invalid_destination(source, destination, path_error.message),
                    path_rule=path_error.rule,
                ) from error
        raise error


def _occurrences(haystack: str, needle: str) -> list[int]:
    """Start indexes of every occurrence of ``needle``, overlapping ones included."""
    starts: list[int] = []
    i = haystack.find(needle)
    while i != -1:
        starts.append(i)
        i = haystack.find(needle, i + 1)
    return starts


async def _ignore_not_found(operation: Awaitable[object]) -> None:
    try:
        await operation
    except MemoryBackendError as error:
        if error.code != "NOT_FOUND":
            raise


__all__ = [
    "DEFAULT_CAS_ATTEMPTS",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_VIEW_CHARS",
    "MemoryEngine",
]
