"""The memory backend over hms-mcp: a :class:`~hms_memory_tool.core.MemoryBackend` that talks
to an hms-mcp server through the official MCP client, over stdio (a server process it starts)
or streamable HTTP (a shared server).

The mapping is the one of ``@hms/memory-backend-hms`` (docs/design/hms-mcp-protocol.md):

=========================  ======================================================================
MemoryBackend              hms-mcp tool
=========================  ======================================================================
``read(path)``             ``get {key}``; ``NOT_FOUND`` gives ``None``
``list(prefix, limit)``    ``list {prefix, tag: "memory-file", limit, cursor}``, every page
``create(path, text)``     ``remember {key, text, tags: ["memory-file"], if_absent: true}``
``update(path, text, v)``  ``remember {key, text, expected_version: v}``
``delete(path, v)``        ``forget {key, expected_version?}``
``delete_prefix(p)``       ``forget {prefix}``, when ``forget``'s input schema has ``prefix``
``move(a, b, v)``          ``move {from, to, expected_version?}``, when there is a ``move`` tool
``move_prefix(a, b)``      ``move {from_prefix, to_prefix}``, when ``move`` takes them
``enforces_tree``          ``True`` when ``move``'s input schema has ``tree`` (the server keeps the
                           memory-file tree well formed on ``remember``)
``delete_tree(p)``         ``forget {key, tree: true}``, with ``tree``
``move_tree(a, b)``        ``move {from, to, tree: true}``, with ``tree``
``max_file_bytes``         ``stats`` → ``max_text_bytes``
``recall(query, k)``       ``recall {query, k, tag: "memory-file"}``
=========================  ======================================================================

Refusals, from the code that starts the error text and the details in
``_meta["hms-mcp/error"]``:

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
import os
import re
import shutil
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final, cast

import anyio
import httpx2
import mcp_types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

if sys.version_info < (3, 11):  # pragma: no cover - the backport anyio also uses
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found,unused-ignore]

from hms_memory_tool.core import (
    FileEntry,
    MemoryBackendError,
    MemoryBackendErrorCode,
    MemoryVersion,
    StoredFile,
)
from hms_memory_tool.errors import HmsConnectionError, HmsMcpError, HmsMcpNotFoundError
from hms_memory_tool.recall import RecallHit

#: The tag every memory file carries, so recall over memory files ignores other memories.
MEMORY_FILE_TAG: Final = "memory-file"
#: Seconds a call may wait for hms-mcp's answer before it fails (``timeout=``).
DEFAULT_TIMEOUT: Final = 60.0

#: Why calls fail once the connection is gone.
CONNECTION_LOST: Final = (
    "The connection to the hms-mcp memory server is closed (the server process exited, the "
    "network connection dropped, or the memory tool was closed), so memory commands cannot "
    "run; connect again to go on."
)
#: Why calls fail after the tool was closed.
CLOSED: Final = (
    "The memory tool is closed: its connection to hms-mcp was shut down. Connect again to go on."
)

_PAGE: Final = 1000  # hms-mcp's largest list page
_ERROR_TEXT: Final = re.compile(r"^([A-Z_]+): (.*)\Z", re.DOTALL)
_BACKEND_CODES: Final = frozenset({"NOT_FOUND", "EXISTS", "VERSION_CONFLICT", "TOO_LARGE"})
_SCRIPT_SUFFIXES: Final = (".js", ".mjs", ".cjs")
_CONNECT_FAILURES: Final = (
    MCPError,
    OSError,
    httpx2.HTTPError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
)


@dataclass(frozen=True)
class ServerCommand:
    """How to start an hms-mcp server process."""

    command: str
    args: tuple[str, ...] = ()


def find_server() -> ServerCommand:
    """The hms-mcp to start when neither ``command`` nor ``url`` is given: ``HMS_MCP_BIN``
    (an executable, or a ``.js`` file run with ``node``), else ``hms-mcp`` on ``PATH``.

    Raises :class:`HmsMcpNotFoundError`, saying how to get one, when there is none.
    """
    configured = os.environ.get("HMS_MCP_BIN")
    if configured:
        if not os.path.exists(configured):
            raise HmsMcpNotFoundError(
                f"HMS_MCP_BIN is set to {configured}, which does not exist. Point it at the "
                "hms-mcp executable (packages/hms-mcp/dist/cli.js in a build of the "
                "Holographic Memory for Claude repository), or unset it to use hms-mcp on PATH."
            )
        if configured.endswith(_SCRIPT_SUFFIXES):
            node = shutil.which("node")
            if node is None:
                raise HmsMcpNotFoundError(
                    f"HMS_MCP_BIN is {configured}, a JavaScript file, but node is not on PATH. "
                    "Install Node.js 20.11 or later."
                )
            return ServerCommand(node, (configured,))
        return ServerCommand(configured)
    on_path = shutil.which("hms-mcp")
    if on_path is not None:
        return ServerCommand(on_path)
    raise HmsMcpNotFoundError(
        "No hms-mcp server to start. Pass command= (and args=) to start one, or url= to use a "
        "running one; or set HMS_MCP_BIN to the hms-mcp executable; or put hms-mcp on PATH. "
        "hms-mcp needs Node.js 20.11+; ./scripts/setup.sh in the Holographic Memory for Claude "
        "repository builds it as packages/hms-mcp/dist/cli.js."
    )


class HmsMcpBackend:
    """A memory backend over one MCP client session with hms-mcp.

    Build it with :func:`open_hms_backend` (which also starts or reaches the server). The
    optional atomic operations and tree capabilities are those the server offers (``None``,
    and ``enforces_tree`` ``False``, otherwise). Every call
    adds ``namespace`` when one was given. Refusals the engine acts on are raised as
    :class:`~hms_memory_tool.core.MemoryBackendError`; everything else as
    :class:`HmsMcpError` (or :class:`HmsConnectionError` when the connection is gone).
    """

    def __init__(
        self,
        client: Client,
        *,
        namespace: str | None,
        max_text_bytes: int,
        tools: Mapping[str, mcp_types.Tool],
        timeout: float | None,
        shared_state: dict[str, str] | None = None,
    ) -> None:
        self._client = client
        self._tools = tools
        self._namespace = namespace
        self._max_text_bytes = max_text_bytes
        self._timeout = timeout
        # "closed": why, once the connection is gone; shared by every namespace's view of it.
        self._shared_state = shared_state if shared_state is not None else {}
        forget = tools.get("forget")
        move = tools.get("move")
        self.delete_prefix = self._delete_prefix if _takes(forget, "prefix") else None
        self.move = self._move if move is not None else None
        self.move_prefix = self._move_prefix if _takes(move, "from_prefix") else None
        # One flag for the tree forms of move and forget and the tree rule on remember.
        self.enforces_tree = _takes(move, "tree")
        self.move_tree = self._move_tree if self.enforces_tree else None
        tree_delete = self.enforces_tree and _takes(forget, "tree")
        self.delete_tree = self._delete_tree if tree_delete else None

    @property
    def max_file_bytes(self) -> int:
        """The server's ``max_text_bytes``."""
        return self._max_text_bytes

    @property
    def namespace(self) -> str | None:
        """The namespace every call names, or ``None`` for the server's own."""
        return self._namespace

    def for_namespace(self, namespace: str | None) -> HmsMcpBackend:
        """A backend over the same connection that names ``namespace`` in every call (on a
        server started with ``--namespace-arg``): one connection can serve many users'
        stores. It shares the connection, so it closes with this one."""
        return HmsMcpBackend(
            self._client,
            namespace=namespace,
            max_text_bytes=self._max_text_bytes,
            tools=self._tools,
            timeout=self._timeout,
            shared_state=self._shared_state,
        )

    async def read(self, path: str) -> StoredFile | None:
        try:
            record = await self.call("get", {"key": path})
        except MemoryBackendError as error:
            if error.code == "NOT_FOUND":
                return None
            raise
        return StoredFile(_string(record, "text"), _integer(record, "version"))

    async def list(self, prefix: str, limit: int | None = None) -> builtins.list[FileEntry]:
        entries: builtins.list[FileEntry] = []
        cursor: str | None = None
        while True:
            wanted = _PAGE if limit is None else min(_PAGE, limit - len(entries))
            arguments: dict[str, Any] = {"prefix": prefix, "tag": MEMORY_FILE_TAG, "limit": wanted}
            if cursor is not None:
                arguments["cursor"] = cursor
            page = await self.call("list", arguments)
            items = cast("builtins.list[dict[str, Any]]", page.get("items", []))
            for item in items:
                entries.append(
                    FileEntry(
                        _string(item, "key"), _integer(item, "bytes"), _integer(item, "version")
                    )
                )
            next_cursor = page.get("next_cursor")
            if not isinstance(next_cursor, str) or (limit is not None and len(entries) >= limit):
                return entries
            cursor = next_cursor

    async def create(self, path: str, content: str) -> MemoryVersion:
        result = await self.call(
            "remember",
            {"key": path, "text": content, "tags": [MEMORY_FILE_TAG], "if_absent": True},
        )
        return _integer(result, "version")

    async def update(
        self, path: str, content: str, expected_version: MemoryVersion
    ) -> MemoryVersion:
        result = await self.call(
            "remember", {"key": path, "text": content, "expected_version": expected_version}
        )
        return _integer(result, "version")

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        arguments: dict[str, Any] = {"key": path}
        if expected_version is not None:
            arguments["expected_version"] = expected_version
        await self.call("forget", arguments)

    async def _delete_prefix(self, prefix: str) -> int:
        return _integer(await self.call("forget", {"prefix": prefix}), "deleted")

    async def _move(
        self, source: str, destination: str, expected_version: MemoryVersion | None = None
    ) -> None:
        arguments: dict[str, Any] = {"from": source, "to": destination}
        if expected_version is not None:
            arguments["expected_version"] = expected_version
        await self.call("move", arguments)

    async def _move_prefix(self, source_prefix: str, destination_prefix: str) -> int:
        result = await self.call(
            "move", {"from_prefix": source_prefix, "to_prefix": destination_prefix}
        )
        return _integer(result, "moved")

    async def _delete_tree(self, path: str) -> int:
        return _integer(await self.call("forget", {"key": path, "tree": True}), "deleted")

    async def _move_tree(self, source: str, destination: str) -> int:
        result = await self.call("move", {"from": source, "to": destination, "tree": True})
        return _integer(result, "moved")

    async def recall(self, query: str, k: int) -> builtins.list[RecallHit]:
        """The memory files most relevant to ``query``, best first (``recall`` of hms-mcp,
        restricted to the ``memory-file`` tag)."""
        result = await self.call("recall", {"query": query, "k": k, "tag": MEMORY_FILE_TAG})
        hits = cast("builtins.list[dict[str, Any]]", result.get("hits", []))
        return [
            RecallHit(
                path=_string(hit, "key"),
                score=float(cast(float, hit.get("score", 0.0))),
                excerpt=_string(hit, "excerpt"),
                line_start=_integer(hit, "line_start"),
                line_end=_integer(hit, "line_end"),
            )
            for hit in hits
        ]

    async def stats(self) -> dict[str, Any]:
        """hms-mcp's ``stats`` of the namespace."""
        return await self.call("stats", {})

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Calls an hms-mcp tool and returns its structured content, raising its refusal."""
        closed = self._shared_state.get("closed")
        if closed is not None:
            raise HmsConnectionError("CONNECTION_CLOSED", closed)
        payload = dict(arguments)
        if self._namespace is not None:
            payload["namespace"] = self._namespace
        try:
            result = await self._client.call_tool(tool, payload, read_timeout_seconds=self._timeout)
        except MCPError as error:
            raise self._connection_error(tool, error) from error
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            raise self._connection_lost(tool, repr(error)) from error
        if result.is_error:
            raise _refusal(tool, payload, result)
        content = result.structured_content
        if not isinstance(content, dict):
            raise HmsMcpError(
                "PROTOCOL", f"hms-mcp answered {tool} without structured content; is it hms-mcp?"
            )
        return cast(dict[str, Any], content)

    def mark_closed(self, reason: str) -> None:
        """Makes every later call fail at once with ``reason``."""
        self._shared_state.setdefault("closed", reason)

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


def _refusal(
    tool: str, arguments: Mapping[str, Any], result: mcp_types.CallToolResult
) -> Exception:
    text = "".join(
        block.text for block in result.content if isinstance(block, mcp_types.TextContent)
    )
    match = _ERROR_TEXT.match(text)
    code = match.group(1) if match else "INTERNAL"
    found = (result.meta or {}).get("hms-mcp/error")
    details: Mapping[str, Any] = found if isinstance(found, dict) else {}
    path = str(arguments.get("key", arguments.get("from", arguments.get("from_prefix", ""))))
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


def _takes(tool: mcp_types.Tool | None, name: str) -> bool:
    if tool is None:
        return False
    properties = tool.input_schema.get("properties")
    return isinstance(properties, dict) and name in properties


def _string(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise HmsMcpError("PROTOCOL", f"hms-mcp answered without a string {name!r}")
    return value


def _integer(data: Mapping[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise HmsMcpError("PROTOCOL", f"hms-mcp answered without an integer {name!r}")
    return value


def server_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of a server process: the MCP SDK's safe defaults (``PATH``, ``HOME``,
    ...), every ``HMS_MCP_*`` variable of this process (so ``HMS_MCP_DATA_DIR`` and the like
    apply) except ``HMS_MCP_TOKEN`` and ``HMS_MCP_BIN``, then ``extra``."""
    env = get_default_environment()
    for name, value in os.environ.items():
        if name.startswith("HMS_MCP_") and name not in ("HMS_MCP_TOKEN", "HMS_MCP_BIN"):
            env[name] = value
    env.update(extra or {})
    return env


@asynccontextmanager
async def open_hms_backend(
    *,
    command: str | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    url: str | None = None,
    token: str | None = None,
    namespace: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - per call, not for this function
) -> AsyncIterator[HmsMcpBackend]:
    """Connects to hms-mcp and yields a backend over it; closes the connection (and stops a
    server process it started) on exit.

    With ``url``, connects to a running server over streamable HTTP, sending
    ``Authorization: Bearer {token}`` (``token`` defaults to ``HMS_MCP_TOKEN``). Otherwise
    starts ``command`` with ``args`` (default: :func:`find_server`) and talks over its stdio.
    """
    if url is not None and command is not None:
        raise ValueError(
            "give either command= (start a server) or url= (use a running one), not both"
        )
    if url is None and token is not None:
        raise ValueError(
            "token= is for url= (a server over HTTP); a server started over stdio needs none"
        )
    if namespace is not None and (not isinstance(namespace, str) or namespace == ""):
        raise ValueError(f"namespace must be a non-empty string, got {namespace!r}")
    try:
        async with _connected(
            command=command,
            args=args,
            env=env,
            url=url,
            token=token,
            namespace=namespace,
            timeout=timeout,
        ) as backend:
            yield backend
    except BaseExceptionGroup as group:
        # The MCP client's task groups wrap whatever is raised inside them (an error of ours,
        # or of the code using the tool) in exception groups; hand on the one error itself.
        sole = _sole_exception(group)
        if sole is None:
            raise
        raise sole from None


def _sole_exception(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return None if isinstance(error, BaseExceptionGroup) else error


@asynccontextmanager
async def _connected(
    *,
    command: str | None,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    url: str | None,
    token: str | None,
    namespace: str | None,
    timeout: float | None,  # noqa: ASYNC109 - per call, not for this function
) -> AsyncIterator[HmsMcpBackend]:
    async with AsyncExitStack() as stack:
        if url is not None:
            bearer = token if token is not None else os.environ.get("HMS_MCP_TOKEN")
            headers = {"Authorization": f"Bearer {bearer}"} if bearer else None
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
            )
            client = Client(
                streamable_http_client(url, http_client=http), read_timeout_seconds=timeout
            )
            where = url
        else:
            server = ServerCommand(command, tuple(args)) if command is not None else find_server()
            parameters = StdioServerParameters(
                command=server.command, args=list(server.args), env=server_environment(env)
            )
            client = Client(parameters, read_timeout_seconds=timeout)
            where = " ".join([server.command, *server.args])
        try:
            await stack.enter_async_context(client)
        except BaseException as error:
            cause = _sole_exception(error) if isinstance(error, BaseExceptionGroup) else error
            if isinstance(cause, _CONNECT_FAILURES):
                raise HmsConnectionError(
                    "CONNECTION_CLOSED", f"Could not connect to hms-mcp ({where}): {cause!r}"
                ) from cause
            raise
        tools = await _list_tools(client)
        if "get" not in tools or "remember" not in tools:
            raise HmsMcpError(
                "PROTOCOL", f"{where} is not hms-mcp: it offers no get and remember tools"
            )
        backend = HmsMcpBackend(
            client, namespace=namespace, max_text_bytes=0, tools=tools, timeout=timeout
        )
        stats = await backend.stats()
        backend._max_text_bytes = _integer(stats, "max_text_bytes")
        try:
            yield backend
        except BaseException:
            # The connection failed under the tool (or the code using it raised).
            backend.mark_closed(CONNECTION_LOST)
            raise
        backend.mark_closed(CLOSED)


async def _list_tools(client: Client) -> dict[str, mcp_types.Tool]:
    tools: dict[str, mcp_types.Tool] = {}
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools.update((tool.name, tool) for tool in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools
