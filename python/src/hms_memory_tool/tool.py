"""The memory tool classes for the Anthropic Python SDK: :class:`HolographicMemoryTool`
(async) and :class:`HolographicMemoryToolSync`, with their ``memory_recall`` companions; the
Python side of ``holographic-memory-claude-tool`` ``tool.ts``.

SDK glue only: every command and every recall is run by a
:class:`~hms_memory_tool.core.MemoryEngine` (parsing, checks, strings, retries), over hms-mcp
(:func:`~hms_memory_tool.hms_backend.connect_hms_backend`) or any other backend.
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import cast

from anthropic.lib.tools import (
    BetaAbstractMemoryTool,
    BetaAsyncAbstractMemoryTool,
    BetaAsyncBuiltinFunctionTool,
    BetaBuiltinFunctionTool,
)
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
    BetaToolParam,
)
from typing_extensions import override

from hms_memory_tool._loop import LoopThread
from hms_memory_tool.core import (
    DEFAULT_RECALL_K,
    DeleteCommand,
    FileChange,
    HistoryOperations,
    HolographicMemoryError,
    MemoryBackend,
    MemoryBackendError,
    MemoryEngine,
    MemoryToolError,
    RecallHit,
    RetryPolicy,
    recall_tool_definition,
)
from hms_memory_tool.core._commands import positive_option
from hms_memory_tool.hms_backend import (
    DEFAULT_TIMEOUT,
    Watch,
    connect_hms_backend,
    run_as_command,
)
from hms_memory_tool.paths import MEMORY_ROOT, MemoryPathError, validate_memory_path


def _check_recall(engine: MemoryEngine) -> None:
    """Refuses a recall tool over a backend that cannot recall when the tool is set up, not
    when Claude calls it."""
    if not engine.can_recall:
        raise HolographicMemoryError(
            "unsupported",
            "recall_tool() needs a backend that can recall, such as hms-mcp's (connect()); "
            f"this tool's backend ({type(engine.backend).__name__}) has no recall.",
        )


def _command_name(command: object) -> str | None:
    """The command a raw input names, for the server's history (checked by the engine)."""
    name = command.get("command") if isinstance(command, dict) else None
    return name if isinstance(name, str) else None


def _history_of(engine: MemoryEngine) -> HistoryOperations:
    """The backend's history, or the refusal a backend without one gets."""
    history = getattr(engine.backend, "history", None)
    if history is None:
        raise HolographicMemoryError(
            "unsupported",
            "history() and restore() need a backend that keeps history, such as hms-mcp's "
            f"(connect()); this tool's backend ({type(engine.backend).__name__}) has none.",
        )
    return cast(HistoryOperations, history)


async def _history(engine: MemoryEngine, path: str, limit: int | None) -> builtins.list[FileChange]:
    history = _history_of(engine)
    try:
        return await history.changes(validate_memory_path(path), limit)
    except MemoryPathError as error:
        raise HolographicMemoryError("invalid_path", str(error)) from error
    except MemoryBackendError as error:
        raise HolographicMemoryError(error.code.lower(), str(error)) from error


async def _restore(engine: MemoryEngine, path: str, version: int) -> int:
    history = _history_of(engine)
    try:
        return await history.restore(validate_memory_path(path), version)
    except MemoryPathError as error:
        raise HolographicMemoryError("invalid_path", str(error)) from error
    except MemoryBackendError as error:
        raise HolographicMemoryError(error.code.lower(), str(error)) from error


#: What :meth:`HolographicMemoryTool.clear_all_memory` returns.
ALL_MEMORY_CLEARED = "Deleted every file and directory under /memories."


async def _clear_all(engine: MemoryEngine) -> str:
    """Deletes each top-level entry of ``/memories`` as a ``delete`` command would (a whole
    directory in one step where the backend can), so only memory files are touched."""
    names = sorted(
        {entry.path.split("/")[2] for entry in await engine.backend.list(MEMORY_ROOT + "/")}
    )
    for name in names:
        try:
            await engine.run(DeleteCommand(f"{MEMORY_ROOT}/{name}"))
        except MemoryToolError as error:
            if error.code != "not_found":  # someone else deleted it first: still cleared
                raise
    return ALL_MEMORY_CLEARED


class HolographicMemoryTool(BetaAsyncAbstractMemoryTool):
    """Claude's memory tool (``memory_20250818``) served from a Holographic Memory store, for
    the SDK's async tool runner (``AsyncAnthropic().beta.messages.tool_runner``).

    Usually made by :meth:`connect`, which starts or reaches an hms-mcp server::

        async with HolographicMemoryTool.connect(command="hms-mcp") as memory:
            runner = client.beta.messages.tool_runner(..., tools=[memory, memory.recall_tool()])

    It can also serve any :class:`~hms_memory_tool.core.MemoryBackend` directly, e.g.
    ``HolographicMemoryTool(InMemoryBackend())``. Every command returns the result string or
    raises :class:`~hms_memory_tool.core.MemoryToolError`, the SDK's ``ToolError``.
    """

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        max_file_bytes: int | None = None,
        max_view_chars: int | None = None,
        retry: RetryPolicy | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.engine = MemoryEngine(
            backend, max_file_bytes=max_file_bytes, max_view_chars=max_view_chars, retry=retry
        )

    @classmethod
    @asynccontextmanager
    async def connect(
        cls,
        *,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        url: str | None = None,
        token: str | None = None,
        namespace: str | None = None,
        max_file_bytes: int | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - per call, not for this function
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> AsyncIterator[HolographicMemoryTool]:
        """Connects to hms-mcp; an async context manager yielding the tool. On exit the
        connection is closed and a server process it started is stopped.

        :param command: the server to start, talking MCP over its stdio (with ``args`` and
            extra ``env``). With neither ``command`` nor ``url``: ``HMS_MCP_BIN``, else
            hms-mcp in the project's ``node_modules``, else ``hms-mcp`` on ``PATH``, else the
            hms-mcp this wheel carries (see :func:`~hms_memory_tool.hms_backend.find_server`).
        :param url: a running ``hms-mcp --transport http`` to use instead.
        :param token: the bearer token for ``url`` (default: ``HMS_MCP_TOKEN``).
        :param namespace: the store to use, on a server started with ``--namespace-arg``.
        :param max_file_bytes: lowers the server's ``max_text_bytes`` for this client (never
            raises it).
        :param timeout: seconds a call waits for the server before failing (``None``: no limit).
        """
        positive_option("max_file_bytes", max_file_bytes)  # before a server starts
        async with connect_hms_backend(
            command=command,
            args=args,
            env=env,
            url=url,
            token=token,
            namespace=namespace,
            timeout=timeout,
        ) as backend:
            yield cls(backend, max_file_bytes=max_file_bytes, cache_control=cache_control)

    @property
    def max_file_bytes(self) -> int:
        """The size limit in force, in UTF-8 bytes (the server's, or a lower one of yours)."""
        return self.engine.max_file_bytes

    @override
    async def call(self, input: object) -> str:
        # The command goes to the engine as Claude sent it, so every field is checked (and
        # every message worded) exactly as in the TypeScript package.
        return await run_as_command(_command_name(input), self.engine.execute(input))

    @override
    async def execute(self, command: object) -> str:
        return await run_as_command(_command_name(command), self.engine.execute(command))

    @override
    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await run_as_command("view", self.engine.view(command))

    @override
    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await run_as_command("create", self.engine.create(command))

    @override
    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await run_as_command("str_replace", self.engine.str_replace(command))

    @override
    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await run_as_command("insert", self.engine.insert(command))

    @override
    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await run_as_command("delete", self.engine.delete(command))

    @override
    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await run_as_command("rename", self.engine.rename(command))

    @override
    async def clear_all_memory(self) -> str:
        """Deletes every memory file, as the SDK's filesystem tool does; other memories in
        the store (keys outside ``/memories``) are left alone. Not one atomic step: a file
        created while it runs may survive."""
        return await _clear_all(self.engine)

    async def recall(
        self,
        query: str,
        k: int = DEFAULT_RECALL_K,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> builtins.list[RecallHit]:
        """The memory files most relevant to ``query``, best first (at most ``k``, 1 to 50),
        each with ``updated_at``, its last change. With ``modified_after`` and/or
        ``modified_before`` (ISO 8601 times with a timezone, such as
        ``2026-07-01T00:00:00Z``), only files last changed at or after the one and before the
        other, chosen before the best ``k`` are taken. A backend that cannot recall raises
        :class:`~hms_memory_tool.core.MemoryToolError` (code ``unsupported``)."""
        return await self.engine.recall_hits(
            query, k, modified_after=modified_after, modified_before=modified_before
        )

    async def history(self, path: str, limit: int | None = None) -> builtins.list[FileChange]:
        """The changes of the memory file at ``path``, newest first (at most ``limit``,
        default 100): every create, edit, move and delete hms-mcp kept, with when and what
        made it. A backend that keeps no history raises
        :class:`~hms_memory_tool.errors.HolographicMemoryError` (code ``unsupported``)."""
        return await _history(self.engine, path, limit)

    async def restore(self, path: str, version: int) -> int:
        """Brings the memory file at ``path`` back to ``version`` (a deleted file comes back)
        as a new version, and returns that version."""
        return await _restore(self.engine, path, version)

    def watch(self, path: str) -> Watch:
        """The changes to the memory file ``path`` or, for a directory (such as
        ``/memories/notes``, or ``/memories`` for all), to any file under it, whoever makes
        them: this tool, another agent on the same server, another process or replica on the
        same store. An async iterator of :class:`~hms_memory_tool.core.MemoryChange`, as the
        TypeScript ``watch(path, onChange)`` tells them::

            async with memory.watch("/memories/notes") as changes:
                async for change in changes:
                    print(change.op, change.path)  # update /memories/notes/todo.md

        ``async with`` listens from its start and stops at its end (iterated alone, it
        listens from the first change asked for, until ``aclose()``). Changes to one file in
        quick succession may be told as one (read the file for what it is now);
        ``op == "overflow"`` says more changed under ``path`` than could be told: read it
        again. The iteration ends when this tool is closed, and raises
        ``HmsConnectionError`` (``CONNECTION_CLOSED``) when the connection is lost (a waiting
        watch pings the server every 5 seconds). Raises
        :class:`~hms_memory_tool.errors.HolographicMemoryError`:
        ``invalid_path`` for a path outside /memories, ``unsupported`` for a backend that
        cannot watch (hms-mcp's can, through ``resources/subscribe``)."""
        watch = getattr(self.engine.backend, "watch", None)
        if watch is None:
            raise HolographicMemoryError(
                "unsupported",
                "watch() needs a backend that tells of changes, such as hms-mcp's (connect()); "
                f"this tool's backend ({type(self.engine.backend).__name__}) has none.",
            )
        try:
            checked = validate_memory_path(path)
        except MemoryPathError as error:
            raise HolographicMemoryError("invalid_path", str(error)) from error
        return cast(Watch, watch(checked))

    def recall_tool(self) -> AsyncMemoryRecallTool:
        """The companion ``memory_recall`` tool, for the same tool runner. Raises
        :class:`~hms_memory_tool.errors.HolographicMemoryError` (code ``unsupported``) at once
        when the backend cannot recall."""
        _check_recall(self.engine)
        return AsyncMemoryRecallTool(self)


class AsyncMemoryRecallTool(BetaAsyncBuiltinFunctionTool):
    """The ``memory_recall`` tool of a :class:`HolographicMemoryTool`, for the async runner.
    ``call(input)`` returns the engine's recall text (see
    :func:`~hms_memory_tool.core.format_recall`)."""

    def __init__(self, memory: HolographicMemoryTool) -> None:
        self._memory = memory

    @override
    def to_dict(self) -> BetaToolParam:
        return cast(BetaToolParam, recall_tool_definition())

    @override
    async def call(self, input: object) -> str:
        return await self._memory.engine.recall(input)


class HolographicMemoryToolSync(BetaAbstractMemoryTool):
    """Claude's memory tool (``memory_20250818``) served from a Holographic Memory store, for
    the SDK's synchronous tool runner (``Anthropic().beta.messages.tool_runner``).

    Usually made by :meth:`connect` and used as a context manager::

        with HolographicMemoryToolSync.connect(command="hms-mcp") as memory:
            client.beta.messages.tool_runner(..., tools=[memory, memory.recall_tool()])

    It runs the MCP client on an event loop of its own in a background thread: it may be
    called from any number of threads at once, and from worker threads of a running event
    loop. :meth:`close` (or leaving the ``with`` block, or interpreter exit) closes the
    connection, stops a server process it started and ends the thread.
    """

    def __init__(
        self,
        backend: MemoryBackend,
        *,
        max_file_bytes: int | None = None,
        max_view_chars: int | None = None,
        retry: RetryPolicy | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
        _loop: LoopThread | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.engine = MemoryEngine(
            backend, max_file_bytes=max_file_bytes, max_view_chars=max_view_chars, retry=retry
        )
        self._loop = _loop if _loop is not None else LoopThread()

    @classmethod
    def connect(
        cls,
        *,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        url: str | None = None,
        token: str | None = None,
        namespace: str | None = None,
        max_file_bytes: int | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> HolographicMemoryToolSync:
        """Connects to hms-mcp and returns the connected tool, which is also a context
        manager (leaving it calls :meth:`close`). Options as
        :meth:`HolographicMemoryTool.connect`."""
        positive_option("max_file_bytes", max_file_bytes)  # before a server starts
        loop = LoopThread()
        try:
            backend = loop.hold(
                connect_hms_backend(
                    command=command,
                    args=args,
                    env=env,
                    url=url,
                    token=token,
                    namespace=namespace,
                    timeout=timeout,
                )
            )
            return cls(
                backend, max_file_bytes=max_file_bytes, cache_control=cache_control, _loop=loop
            )
        except BaseException:
            loop.close()
            raise

    def close(self) -> None:
        """Closes the connection, stops a server process it started and ends the background
        thread. Later calls fail with :class:`~hms_memory_tool.errors.HmsConnectionError`."""
        self._loop.close()

    def __enter__(self) -> HolographicMemoryToolSync:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def max_file_bytes(self) -> int:
        """The size limit in force, in UTF-8 bytes (the server's, or a lower one of yours)."""
        return self.engine.max_file_bytes

    @override
    def call(self, input: object) -> str:
        return self._loop.run(run_as_command(_command_name(input), self.engine.execute(input)))

    @override
    def execute(self, command: object) -> str:
        return self._loop.run(run_as_command(_command_name(command), self.engine.execute(command)))

    @override
    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self._loop.run(run_as_command("view", self.engine.view(command)))

    @override
    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._loop.run(run_as_command("create", self.engine.create(command)))

    @override
    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self._loop.run(run_as_command("str_replace", self.engine.str_replace(command)))

    @override
    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self._loop.run(run_as_command("insert", self.engine.insert(command)))

    @override
    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self._loop.run(run_as_command("delete", self.engine.delete(command)))

    @override
    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self._loop.run(run_as_command("rename", self.engine.rename(command)))

    @override
    def clear_all_memory(self) -> str:
        """Deletes every memory file; see :meth:`HolographicMemoryTool.clear_all_memory`."""
        return self._loop.run(_clear_all(self.engine))

    def recall(
        self,
        query: str,
        k: int = DEFAULT_RECALL_K,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> builtins.list[RecallHit]:
        """The memory files most relevant to ``query``, best first (at most ``k``, 1 to 50),
        optionally only those last changed in a time range; see
        :meth:`HolographicMemoryTool.recall`."""
        return self._loop.run(
            self.engine.recall_hits(
                query, k, modified_after=modified_after, modified_before=modified_before
            )
        )

    def history(self, path: str, limit: int | None = None) -> builtins.list[FileChange]:
        """The changes of the memory file at ``path``, newest first; see
        :meth:`HolographicMemoryTool.history`."""
        return self._loop.run(_history(self.engine, path, limit))

    def restore(self, path: str, version: int) -> int:
        """Brings the memory file at ``path`` back to ``version``; see
        :meth:`HolographicMemoryTool.restore`."""
        return self._loop.run(_restore(self.engine, path, version))

    def recall_tool(self) -> MemoryRecallTool:
        """The companion ``memory_recall`` tool, for the same tool runner. Raises
        :class:`~hms_memory_tool.errors.HolographicMemoryError` (code ``unsupported``) at once
        when the backend cannot recall."""
        _check_recall(self.engine)
        return MemoryRecallTool(self)


class MemoryRecallTool(BetaBuiltinFunctionTool):
    """The ``memory_recall`` tool of a :class:`HolographicMemoryToolSync`, for the sync
    runner. ``call(input)`` returns the engine's recall text (see
    :func:`~hms_memory_tool.core.format_recall`)."""

    def __init__(self, memory: HolographicMemoryToolSync) -> None:
        self._memory = memory

    @override
    def to_dict(self) -> BetaToolParam:
        return cast(BetaToolParam, recall_tool_definition())

    @override
    def call(self, input: object) -> str:
        return self._memory._loop.run(self._memory.engine.recall(input))
