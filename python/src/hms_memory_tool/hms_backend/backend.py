"""The memory backend over hms-mcp: the Python side of ``@hms/memory-backend-hms``
``backend.ts``.

:class:`HmsMemoryBackend` is a :class:`~hms_memory_tool.core.MemoryBackend` (with the tree
operations and recall) over one MCP client session with hms-mcp; :func:`connect_hms_backend
<hms_memory_tool.hms_backend.connect_hms_backend>` makes one. The mapping is the one of
docs/design/hms-mcp-protocol.md:

=========================  ======================================================================
MemoryBackend              hms-mcp tool
=========================  ======================================================================
``read(path)``             ``get {key}``; ``NOT_FOUND`` gives ``None``
``list(prefix, limit)``    ``list {prefix, tag: "memory-file", limit, cursor}``, every page
``create(path, text)``     ``remember {key, text, tags: ["memory-file"], if_absent: true}``
``update(path, text, v)``  ``remember {key, text, expected_version: v}``
``delete(path, v)``        ``forget {key, expected_version?}``
``tree.delete_tree(p)``    ``forget {key, tree: true}``
``tree.move_tree(a, b)``   ``move {from, to, tree: true}``
``max_file_bytes``         ``stats`` → ``max_text_bytes``
``recall(query, k, ...)``  ``recall {query, k, tag: "memory-file", modified_after?, ...}``
``history.changes(p, n)``  ``history {key, limit?}``
``history.restore(p, v)``  ``restore {key, version}``
=========================  ======================================================================

Every structured answer is held to its tool's output schema (from ``protocol.json``); one
that does not fit is an :class:`HmsMcpError` with code ``PROTOCOL``. Refusals, from the code
that starts the error text (one of the contract's error codes, else ``INTERNAL``) and the
details in ``_meta["hms-mcp/error"]``:

==================================================  ================================================
hms-mcp                                             MemoryBackendError
==================================================  ================================================
``NOT_FOUND``, ``EXISTS``, ``VERSION_CONFLICT``     the same code
``TOO_LARGE`` (``limit``)                           ``TOO_LARGE`` with ``limit``
``PATH_CONFLICT`` ``conflict: "directory"``         ``IS_DIRECTORY``
``PATH_CONFLICT`` ``conflict: "file"``, ``path``    ``UNDER_FILE`` with ``file=path``
``INVALID_ARGUMENT`` ``reason: "into_itself"``      ``INTO_ITSELF``
``INVALID_ARGUMENT`` ``reason: "invalid_key"``      ``INVALID_KEY`` with ``key``
anything else                                       :class:`HmsMcpError`
==================================================  ================================================
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, cast

import anyio
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError

from hms_memory_tool.core import (
    FileChange,
    FileEntry,
    MemoryBackendError,
    MemoryBackendErrorCode,
    MemoryVersion,
    RecallHit,
    StoredFile,
)
from hms_memory_tool.hms_backend.command_context import COMMAND_META_KEY, current_command
from hms_memory_tool.protocol import (
    ERROR_CODES,
    ERROR_META_KEY,
    MAX_PAGE,
    MEMORY_FILE_TAG,
    output_problem,
)

from .errors import CONNECTION_LOST, HmsConnectionError, HmsMcpError, session_forgotten
from .watch import ConnectionChanges, Watch

_ERROR_TEXT: Final = re.compile(r"^([A-Z_]+): (.*)\Z", re.DOTALL)
#: hms-mcp's codes that are the same refusal for the engine.
_BACKEND_CODES: Final = frozenset({"NOT_FOUND", "EXISTS", "VERSION_CONFLICT", "TOO_LARGE"})


class HmsMemoryBackend:
    """A memory backend over one MCP client session with hms-mcp.

    Made by :func:`~hms_memory_tool.hms_backend.connect_hms_backend`, which also starts or
    reaches the server and checks that it speaks this client's protocol version. It always
    offers the tree operations (:attr:`tree`) and recall. Every call adds ``namespace`` when
    one was given. Refusals the engine acts on are raised as
    :class:`~hms_memory_tool.core.MemoryBackendError`; everything else as :class:`HmsMcpError`
    (or :class:`~hms_memory_tool.hms_backend.HmsConnectionError` when the connection is gone).
    """

    def __init__(
        self,
        client: Client,
        *,
        namespace: str | None,
        max_text_bytes: int,
        timeout: float | None,
        reopen: Callable[[], Awaitable[Client]] | None = None,
        shared_state: _Shared | None = None,
        changes: ConnectionChanges | None = None,
    ) -> None:
        self._namespace = namespace
        self._max_text_bytes = max_text_bytes
        self._timeout = timeout
        # Shared by every namespace's view of the connection.
        self._shared = (
            shared_state if shared_state is not None else _Shared(client, reopen, changes)
        )
        self._tree = HmsTreeOperations(self)
        self._history = HmsHistoryOperations(self)

    @property
    def max_file_bytes(self) -> int:
        """The server's ``max_text_bytes``."""
        return self._max_text_bytes

    @property
    def tree(self) -> HmsTreeOperations:
        """The tree forms of ``forget`` and ``move``; hms-mcp keeps the memory-file tree well
        formed on ``remember``."""
        return self._tree

    @property
    def history(self) -> HmsHistoryOperations:
        """The history hms-mcp keeps of every memory file: a file's changes, and a version
        brought back as a new version."""
        return self._history

    @property
    def namespace(self) -> str | None:
        """The namespace every call names, or ``None`` for the server's own."""
        return self._namespace

    def for_namespace(self, namespace: str | None) -> HmsMemoryBackend:
        """A backend over the same connection that names ``namespace`` in every call (on a
        server started with ``--namespace-arg``): one connection can serve many users'
        stores. It shares the connection, so it closes with this one."""
        return HmsMemoryBackend(
            self._shared.client,
            namespace=namespace,
            max_text_bytes=self._max_text_bytes,
            timeout=self._timeout,
            shared_state=self._shared,
        )

    def watch(self, path: str) -> Watch:
        """The changes to the memory file ``path`` (``/memories/...``) or, for a directory,
        to any file under it, whoever makes them (this client, another process, another
        replica), as an async iterator of :class:`~hms_memory_tool.core.MemoryChange`; see
        :class:`~hms_memory_tool.hms_backend.watch.Watch`. Changes to one file in quick
        succession may be told as one. A refusal (a path outside /memories, the server's cap
        on subscriptions) raises :class:`HmsMcpError` when the watch starts."""
        changes = self._shared.changes
        if changes is None:
            raise HmsMcpError(
                "UNSUPPORTED",
                "this connection was made without change notifications; connect with "
                "connect_hms_backend() to watch files",
            )
        if self._shared.closed is not None:
            raise HmsConnectionError("CONNECTION_CLOSED", self._shared.closed)

        async def namespace() -> str:
            # A URI names its namespace: the server's own unless this view names one.
            if self._namespace is not None:
                return self._namespace
            return str((await self.stats())["namespace"])

        return Watch(
            namespace=namespace,
            path=path,
            client=lambda: self._shared.client,
            changes=changes,
            lost=lambda detail: self.mark_closed(CONNECTION_LOST),
            new_session=self._new_session_for_watches,
        )

    async def _new_session_for_watches(self, stale: Client) -> bool:
        """A watch's ping found the session forgotten (HTTP only): opens a new one, which
        moves the watches to it. False when that is not possible (stdio, or it failed)."""
        if self._shared.reopen is None:
            return False
        try:
            await self._shared.replace(stale)
        except (MCPError, OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def read(self, path: str) -> StoredFile | None:
        try:
            record = await self.call("get", {"key": path})
        except MemoryBackendError as error:
            if error.code == "NOT_FOUND":
                return None
            raise
        return StoredFile(record["text"], record["version"])

    async def list(self, prefix: str, limit: int | None = None) -> builtins.list[FileEntry]:
        entries: builtins.list[FileEntry] = []
        cursor: str | None = None
        while True:
            wanted = MAX_PAGE if limit is None else min(MAX_PAGE, limit - len(entries))
            arguments: dict[str, Any] = {"prefix": prefix, "tag": MEMORY_FILE_TAG, "limit": wanted}
            if cursor is not None:
                arguments["cursor"] = cursor
            page = await self.call("list", arguments)
            entries.extend(
                FileEntry(item["key"], item["bytes"], item["version"]) for item in page["items"]
            )
            cursor = page["next_cursor"]
            if cursor is None or (limit is not None and len(entries) >= limit):
                return entries

    async def create(self, path: str, content: str) -> MemoryVersion:
        result = await self.call(
            "remember",
            {"key": path, "text": content, "tags": [MEMORY_FILE_TAG], "if_absent": True},
        )
        return cast(int, result["version"])

    async def update(
        self, path: str, content: str, expected_version: MemoryVersion
    ) -> MemoryVersion:
        result = await self.call(
            "remember", {"key": path, "text": content, "expected_version": expected_version}
        )
        return cast(int, result["version"])

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        arguments: dict[str, Any] = {"key": path}
        if expected_version is not None:
            arguments["expected_version"] = expected_version
        await self.call("forget", arguments)

    async def recall(
        self,
        query: str,
        k: int,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> builtins.list[RecallHit]:
        """The memory files most relevant to ``query``, best first (``recall`` of hms-mcp,
        restricted to the ``memory-file`` tag, and to files last changed at or after
        ``modified_after`` and before ``modified_before`` when given). Each hit carries the
        file's last change."""
        arguments: dict[str, Any] = {"query": query, "k": k, "tag": MEMORY_FILE_TAG}
        if modified_after is not None:
            arguments["modified_after"] = modified_after
        if modified_before is not None:
            arguments["modified_before"] = modified_before
        result = await self.call("recall", arguments)
        return [
            RecallHit(
                path=hit["key"],
                score=float(hit["score"]),
                excerpt=hit["excerpt"],
                line_start=hit["line_start"],
                line_end=hit["line_end"],
                updated_at=hit.get("updated_at"),
            )
            for hit in result["hits"]
        ]

    async def stats(self) -> dict[str, Any]:
        """hms-mcp's ``stats`` of the namespace."""
        return await self.call("stats", {})

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Calls an hms-mcp tool and returns its structured content (held to the tool's output
        schema), raising its refusal."""
        shared = self._shared
        if shared.closed is not None:
            raise HmsConnectionError("CONNECTION_CLOSED", shared.closed)
        payload = dict(arguments)
        if self._namespace is not None:
            payload["namespace"] = self._namespace
        client = shared.client
        try:
            result = await self._send(client, tool, payload)
        except MCPError as error:
            if not session_forgotten(error) or shared.reopen is None:
                raise self._connection_error(tool, error) from error
            # The server forgot the session (it restarted, or expired it) and did not run the
            # call, so sending it again once, on a new session, is safe.
            result = await self._send_again(client, tool, payload)
        if result.is_error:
            raise _refusal(tool, payload, result)
        content = result.structured_content
        if not isinstance(content, dict):
            raise HmsMcpError(
                "PROTOCOL", f"hms-mcp answered {tool} without structured content; is it hms-mcp?"
            )
        problem = output_problem(tool, content)
        if problem is not None:
            raise HmsMcpError(
                "PROTOCOL",
                f"hms-mcp answered {tool} with content that breaks its output schema"
                f"{problem.where}: {problem.message}; is it hms-mcp?",
            )
        return cast(dict[str, Any], content)

    def mark_closed(self, reason: str) -> None:
        """Makes every later call fail at once with ``reason``, and ends every watch."""
        if self._shared.closed is None:
            self._shared.closed = reason
            if self._shared.changes is not None:
                self._shared.changes.end(reason)

    async def _send(
        self, client: Client, tool: str, payload: Mapping[str, Any]
    ) -> mcp_types.CallToolResult:
        command = current_command()
        try:
            return await client.call_tool(
                tool,
                dict(payload),
                read_timeout_seconds=self._timeout,
                meta=None if command is None else cast(Any, {COMMAND_META_KEY: command}),
            )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            raise self._connection_lost(tool, repr(error)) from error

    async def _send_again(
        self, stale: Client, tool: str, payload: Mapping[str, Any]
    ) -> mcp_types.CallToolResult:
        """Opens a new session in place of ``stale`` (unless another call already has) and
        sends the call on it; a second forgotten session is an error."""
        shared = self._shared
        try:
            await shared.replace(stale)
            return await self._send(shared.client, tool, payload)
        except MCPError as error:
            if session_forgotten(error):
                self.mark_closed(
                    f"{CONNECTION_LOST} hms-mcp answered the {tool} call with HTTP 404 (it does "
                    "not know this client's session) on a session opened just before, so this "
                    "client stopped retrying."
                )
                raise HmsConnectionError("CONNECTION_CLOSED", str(shared.closed)) from error
            raise self._connection_error(tool, error) from error

    def _connection_error(self, tool: str, error: MCPError) -> HmsMcpError:
        if error.code == mcp_types.REQUEST_TIMEOUT:
            return HmsConnectionError(
                "TIMEOUT",
                f"hms-mcp did not answer the {tool} call within {self._timeout:g} seconds. The "
                "server may be overloaded or stuck; nothing is known about whether the change "
                "was made. View the file and try again.",
            )
        if error.code == mcp_types.CONNECTION_CLOSED:
            return self._connection_lost(tool, error.message)
        return HmsMcpError(
            "PROTOCOL",
            f"hms-mcp refused the {tool} call: {error.message} (MCP error {error.code}).",
        )

    def _connection_lost(self, tool: str, detail: str) -> HmsConnectionError:
        self.mark_closed(CONNECTION_LOST)
        return HmsConnectionError(
            "CONNECTION_CLOSED", f"{CONNECTION_LOST} The {tool} call failed with: {detail}"
        )


class _Shared:
    """What every namespace view of one connection shares: the MCP client (replaced when the
    server forgot its session), how to open one on a new session (HTTP only), and why the
    connection closed."""

    def __init__(
        self,
        client: Client,
        reopen: Callable[[], Awaitable[Client]] | None,
        changes: ConnectionChanges | None = None,
    ) -> None:
        self.client = client
        self.reopen = reopen
        #: The connection's change notifications (its client's message handler), if watched.
        self.changes = changes
        self.closed: str | None = None
        self._replacing: anyio.Event | None = None

    async def replace(self, stale: Client) -> None:
        """A client on a new session in place of ``stale``; concurrent callers share one."""
        if self.client is not stale or self.reopen is None:
            return  # another call has already replaced it
        if self._replacing is not None:
            await self._replacing.wait()
            return
        self._replacing = anyio.Event()
        try:
            self.client = await self.reopen()
            # The old session's subscriptions ended with it: the watches move to the new one.
            if self.changes is not None:
                await self.changes.move_to(self.client)
        finally:
            self._replacing.set()
            self._replacing = None


class HmsTreeOperations:
    """The tree operations of an :class:`HmsMemoryBackend`: the tree forms of ``forget`` and
    ``move``, each one call and one transaction on the server."""

    def __init__(self, backend: HmsMemoryBackend) -> None:
        self._backend = backend

    async def delete_tree(self, path: str) -> int:
        result = await self._backend.call("forget", {"key": path, "tree": True})
        return cast(int, result["deleted"])

    async def move_tree(self, source: str, destination: str) -> int:
        result = await self._backend.call("move", {"from": source, "to": destination, "tree": True})
        return cast(int, result["moved"])


class HmsHistoryOperations:
    """The history operations of an :class:`HmsMemoryBackend`: hms-mcp's ``history`` and
    ``restore`` tools."""

    def __init__(self, backend: HmsMemoryBackend) -> None:
        self._backend = backend

    async def changes(self, path: str, limit: int | None = None) -> builtins.list[FileChange]:
        arguments: dict[str, Any] = {"key": path}
        if limit is not None:
            arguments["limit"] = limit
        answer = await self._backend.call("history", arguments)
        return [
            FileChange(
                op=change["op"],
                path=change["key"],
                from_path=change["from_key"],
                version=change["version"],
                bytes=change["bytes"],
                at=change["at"],
                command=change["command"],
                actor=change["actor"],
            )
            for change in answer["changes"]
        ]

    async def restore(self, path: str, version: int) -> int:
        answer = await self._backend.call("restore", {"key": path, "version": version})
        restored = answer["restored"]
        if not restored:
            raise HmsMcpError(
                "PROTOCOL", f"hms-mcp restored nothing for {path} at version {version}"
            )
        return cast(int, restored[0]["version"])


def _refusal(
    tool: str, arguments: Mapping[str, Any], result: mcp_types.CallToolResult
) -> Exception:
    """A refused call as the error the engine acts on, or as an :class:`HmsMcpError`."""
    text = "".join(
        block.text for block in result.content if isinstance(block, mcp_types.TextContent)
    )
    match = _ERROR_TEXT.match(text)
    code = match.group(1) if match and match.group(1) in ERROR_CODES else "INTERNAL"
    found = (result.meta or {}).get(ERROR_META_KEY)
    details: Mapping[str, Any] = found if isinstance(found, dict) else {}
    path = str(arguments.get("key", arguments.get("from", "")))
    if code in _BACKEND_CODES:
        limit = details.get("limit")
        return MemoryBackendError(
            cast(MemoryBackendErrorCode, code),
            path,
            text,
            limit=limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
        )
    if code == "PATH_CONFLICT":
        if details.get("conflict") == "directory":
            return MemoryBackendError("IS_DIRECTORY", path, text)
        if details.get("conflict") == "file":
            file = details.get("path")
            return MemoryBackendError(
                "UNDER_FILE", path, text, file=file if isinstance(file, str) else None
            )
    if code == "INVALID_ARGUMENT":
        if details.get("reason") == "into_itself":
            return MemoryBackendError("INTO_ITSELF", path, text)
        key = details.get("key")
        if details.get("reason") == "invalid_key" and isinstance(key, str):
            return MemoryBackendError("INVALID_KEY", path, text, key=key)
    return HmsMcpError(code, f"hms-mcp refused the {tool} call: {text}")
