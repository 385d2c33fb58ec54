"""Connecting to hms-mcp: the Python side of ``@hms/memory-backend-hms`` ``connect.ts``."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Final

import anyio
import anyio.to_thread
import httpx2
import mcp_types
from anyio.abc import TaskStatus
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from hms_memory_tool.protocol import PROTOCOL_VERSION, stated_protocol_version

from .backend import HmsMemoryBackend
from .errors import CLOSED, CONNECTION_LOST, HmsConnectionError, HmsMcpError
from .find_server import (
    HMS_MCP_COMMAND,
    INSTALL_HINT,
    ServerCommand,
    find_server,
    server_environment,
)
from .stderr_tail import ServerStderr, describe_stderr
from .watch import ConnectionChanges

#: Seconds a call may wait for hms-mcp's answer before it fails (``timeout=``).
DEFAULT_TIMEOUT: Final = 60.0

#: What a failed connect says when the server's stdout closed: it has stopped.
SERVER_ENDED: Final = "the server process ended while connecting."

_CONNECT_FAILURES: Final = (
    MCPError,
    OSError,
    httpx2.HTTPError,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
)


@asynccontextmanager
async def connect_hms_backend(
    *,
    command: str | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    url: str | None = None,
    token: str | None = None,
    namespace: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109 - per call, not for this function
) -> AsyncIterator[HmsMemoryBackend]:
    """Connects to hms-mcp and yields a backend over it; closes the connection (and stops a
    server process it started) on exit.

    With ``url``, connects to a running server over streamable HTTP, sending
    ``Authorization: Bearer {token}`` (``token`` defaults to ``HMS_MCP_TOKEN``). Otherwise
    starts ``command`` with ``args`` and talks over its stdio; no command, or the bare name
    ``"hms-mcp"``, starts the hms-mcp :func:`find_server` finds, with ``args`` after its own.
    The server logs at ``warn`` unless ``HMS_MCP_LOG_LEVEL`` (here or in ``env``) or
    ``--log-level`` in ``args`` says otherwise.

    The server must state the protocol version this client speaks (see
    :func:`check_protocol_version`); then one ``stats`` call gives its ``max_text_bytes``.
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


def check_protocol_version(experimental: object, where: str) -> None:
    """Refuses (:class:`HmsMcpError` with code ``PROTOCOL``) a server whose ``initialize``
    result does not state this client's protocol version in
    ``capabilities.experimental["hms-mcp"]["protocolVersion"]``; ``where`` names the server."""
    stated = stated_protocol_version(experimental)
    if stated == PROTOCOL_VERSION:
        return
    if stated is None:
        raise HmsMcpError(
            "PROTOCOL",
            f"{where} is not hms-mcp: it states no hms-mcp protocol version in its "
            f"capabilities (this client needs protocol {PROTOCOL_VERSION}).",
        )
    raise HmsMcpError(
        "PROTOCOL",
        f"{where} speaks hms-mcp protocol {stated}; this client needs protocol "
        f"{PROTOCOL_VERSION}. Install versions of hms-mcp and this package that match.",
    )


async def _hold(client: Client, *, task_status: TaskStatus[None]) -> None:
    """Keeps ``client`` connected until this task is cancelled."""
    async with client:
        task_status.started()
        await anyio.sleep_forever()


def _closed(cause: BaseException) -> bool:
    """Whether a connect failed because the connection closed (the MCP SDK's code for it)."""
    return isinstance(cause, MCPError) and cause.code == mcp_types.CONNECTION_CLOSED


def _why(cause: BaseException, refused: Sequence[int], stdio: bool) -> str:
    """What a failed connect says: what to do about a refused token or a missing program,
    that a started server ended, else the error itself."""
    if stdio and _closed(cause):
        return SERVER_ENDED
    if refused:
        return (
            f"it refused the request (HTTP {refused[-1]}): pass the server's token as token= "
            f"or set HMS_MCP_TOKEN. ({cause!r})"
        )
    if isinstance(cause, FileNotFoundError):
        return (
            f"there is no program {cause.filename or ''!r} to start (ENOENT). {INSTALL_HINT}, "
            "or give the program's full path as command=."
        )
    return repr(cause)


def _server_command(command: str | None, args: Sequence[str]) -> ServerCommand:
    """What to start: ``command`` with ``args``, except that no command, or the bare name
    ``hms-mcp``, is the hms-mcp :func:`find_server` finds (``HMS_MCP_BIN``, the project's
    ``node_modules``, PATH, then this package's own), ``args`` after its own."""
    if command is None or command == HMS_MCP_COMMAND:
        found = find_server()
        return ServerCommand(found.command, (*found.args, *args))
    return ServerCommand(command, tuple(args))


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
) -> AsyncIterator[HmsMemoryBackend]:
    async with AsyncExitStack() as stack:
        # Every client of the connection (a new one after the server forgot a session too)
        # hands its change notifications to the backend's watches.
        changes = ConnectionChanges()
        refused: list[int] = []
        server_stderr: ServerStderr | None = None
        if url is not None:
            bearer = token if token is not None else os.environ.get("HMS_MCP_TOKEN")
            headers = {"Authorization": f"Bearer {bearer}"} if bearer else None

            async def note_refusal(response: httpx2.Response) -> None:
                # The MCP SDK turns a refused request into a bare "Server returned an error
                # response"; the status says what to do about it.
                if response.status_code in (401, 403):
                    refused.append(response.status_code)

            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=headers,
                    timeout=httpx2.Timeout(30.0, read=300.0),
                    event_hooks={"response": [note_refusal]},
                )
            )
            client = Client(
                streamable_http_client(url, http_client=http),
                read_timeout_seconds=timeout,
                message_handler=changes.handle,
            )
            where = url
            # Clients on new sessions (after the server forgot one) run in tasks of their own,
            # cancelled when the connection closes.
            sessions = await stack.enter_async_context(anyio.create_task_group())
            stack.callback(sessions.cancel_scope.cancel)
            http_url = url

            async def reopen() -> Client:
                fresh = Client(
                    streamable_http_client(http_url, http_client=http),
                    read_timeout_seconds=timeout,
                    message_handler=changes.handle,
                )
                await sessions.start(_hold, fresh)
                check_protocol_version(fresh.server_capabilities.experimental, where)
                return fresh
        else:
            server = _server_command(command, args)
            parameters = StdioServerParameters(
                command=server.command, args=list(server.args), env=server_environment(env)
            )
            # The server's stderr goes through a pipe of ours, so a failed connect can tell
            # its last lines; everything is still passed on to sys.stderr. Registered first,
            # it is waited for after the server has stopped.
            piped = server_stderr = ServerStderr()
            stack.push_async_callback(lambda: anyio.to_thread.run_sync(piped.close))
            client = Client(
                stdio_client(parameters, errlog=piped.writer),
                read_timeout_seconds=timeout,
                message_handler=changes.handle,
            )
            where = " ".join([server.command, *server.args])
        try:
            await stack.enter_async_context(client)
        except BaseException as error:
            cause = _sole_exception(error) if isinstance(error, BaseExceptionGroup) else error
            if isinstance(cause, _CONNECT_FAILURES):
                log = ""
                if server_stderr is not None:
                    lines = await anyio.to_thread.run_sync(server_stderr.lines)
                    log = describe_stderr(lines, _closed(cause))
                raise HmsConnectionError(
                    "CONNECTION_CLOSED",
                    f"Could not connect to hms-mcp ({where}): "
                    f"{_why(cause, refused, server_stderr is not None)}{log}",
                ) from cause
            raise
        finally:
            if server_stderr is not None:
                server_stderr.spawned()
        check_protocol_version(client.server_capabilities.experimental, where)
        backend = HmsMemoryBackend(
            client,
            namespace=namespace,
            max_text_bytes=0,
            timeout=timeout,
            reopen=reopen if url is not None else None,
            changes=changes,
        )
        stats = await backend.stats()
        backend._max_text_bytes = stats["max_text_bytes"]
        try:
            yield backend
        except BaseException:
            # The connection failed under the tool (or the code using it raised).
            backend.mark_closed(CONNECTION_LOST)
            raise
        backend.mark_closed(CLOSED)
