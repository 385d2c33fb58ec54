"""Watching memory files over MCP: the Python side of ``@hms/memory-backend-hms``
``watch.ts``. A :class:`Watch` subscribes (``resources/subscribe``) to the URI of a memory
file or directory and yields each change hms-mcp tells of it as a
:class:`~hms_memory_tool.core.MemoryChange`, in the same terms as the TypeScript ``watch``.
Watches of one URI on one connection share one subscription, which ends with the last of
them."""

from __future__ import annotations

import re
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Final
from urllib.parse import quote, unquote

import anyio
import anyio.lowlevel
import httpx2
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError

from hms_memory_tool.core import MemoryChange
from hms_memory_tool.protocol import CHANGE_META_KEY

from .errors import CLOSED, HmsConnectionError, HmsMcpError, session_forgotten

#: Changes a watch holds for a reader that does not keep up; beyond it they collapse into one
#: ``overflow`` (read everything again), as the server's own bound does.
MAX_WAITING: Final = 1000

#: Seconds a watch waits for a change before it asks the server whether the connection still
#: stands (an MCP ping): a watch on a server that died ends then, instead of waiting forever.
KEEPALIVE_SECONDS: Final = 5.0

#: What a failed ping or unsubscribe raises when the connection is gone (over HTTP, the
#: server unreachable).
_CONNECTION_GONE: Final = (
    MCPError,
    httpx2.TransportError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
)

#: Moves a watch remembers having told (a move is notified for both of its files).
_MOVES_REMEMBERED: Final = 64

#: What encodeURIComponent leaves as it is, besides letters, digits and ``-_.~``.
_UNRESERVED: Final = "!*'()"

_URI: Final = re.compile(r"^hms-mcp://([^/]+)/(.+)$")


def memory_uri(namespace: str, key: str) -> str:
    """The resource URI of ``key`` in ``namespace``, as hms-mcp names memories (the key
    percent-encoded as JavaScript's ``encodeURIComponent`` does)."""
    return f"hms-mcp://{namespace}/{quote(key, safe=_UNRESERVED)}"


@contextmanager
def _handshake_era() -> Iterator[None]:
    """The mcp package warns that protocol 2026-07-28 replaces resources/subscribe with
    subscriptions/listen, and removes ping; hms-mcp speaks the handshake-era protocol, where
    both are the way (the warning would tell a user of this package to change what is not
    theirs)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"resources/(un)?subscribe is removed")
        warnings.filterwarnings("ignore", message=r"ping is removed")
        yield


def _parse_uri(uri: str) -> tuple[str, str] | None:
    match = _URI.match(uri)
    return None if match is None else (match.group(1), unquote(match.group(2)))


class ConnectionChanges:
    """The change notifications of one connection (its ``message_handler``), told to the
    watches they concern, and the subscriptions the watches share."""

    def __init__(self) -> None:
        self._watches: dict[str, set[Watch]] = {}

    async def handle(self, message: object) -> None:
        """The MCP client's message handler: takes ``notifications/resources/updated``."""
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            meta = message.params.meta
            told = None if meta is None else getattr(meta, "model_extra", None) or dict(meta)
            self._heard(message.params.uri, (told or {}).get(CHANGE_META_KEY))
        await anyio.lowlevel.checkpoint()

    async def add(self, client: Client, watch: Watch) -> None:
        watches = self._watches.get(watch.uri)
        if watches is None:
            watches = set()
            self._watches[watch.uri] = watches
            try:
                with _handshake_era():
                    await client.subscribe_resource(watch.uri)
            except BaseException:
                del self._watches[watch.uri]
                raise
        watches.add(watch)

    async def remove(self, client: Client, watch: Watch) -> None:
        watches = self._watches.get(watch.uri)
        if watches is None or watch not in watches:
            return
        watches.discard(watch)
        if not watches:
            del self._watches[watch.uri]
            try:
                with _handshake_era():
                    await client.unsubscribe_resource(watch.uri)
            except _CONNECTION_GONE:
                # The connection is gone, and the subscription with it.
                pass

    async def move_to(self, client: Client) -> None:
        """Subscribes ``client``, on a new session, to every URI watched (the old session's
        subscriptions ended with it), then tells every watch ``overflow``: what changed
        between the two sessions was not told."""
        for uri in list(self._watches):
            with _handshake_era():
                await client.subscribe_resource(uri)
        for watches in self._watches.values():
            for watch in watches:
                watch.tell(MemoryChange("overflow", watch.path, None))

    def end(self, reason: str) -> None:
        """The connection ended (``reason``: why; :data:`CLOSED` when it was closed): every
        watch ends, a closed one quietly, one whose connection was lost with the error."""
        for watches in list(self._watches.values()):
            for watch in list(watches):
                watch.end(reason)

    def _heard(self, uri: str, told: Any) -> None:
        changed = _parse_uri(uri)
        if changed is None:
            return
        namespace, key = changed
        for subscribed, watches in self._watches.items():
            for watch in watches:
                if watch.namespace != namespace:
                    continue
                if isinstance(told, dict) and told.get("overflow") is True:
                    if subscribed == uri:
                        watch.tell(MemoryChange("overflow", watch.path, None))
                    continue
                if key != watch.path and not key.startswith(f"{watch.path}/"):
                    continue
                if not isinstance(told, dict):
                    watch.tell(MemoryChange("update", key, None))
                elif told.get("op") == "move":
                    watch.tell_move(told.get("seq"), str(told["key"]), str(told["from_key"]))
                elif told.get("op") in ("create", "update", "delete"):
                    watch.tell(MemoryChange(told["op"], str(told["key"]), None))


class Watch:
    """The changes to a memory file, or to every file under a directory, whoever makes
    them; made by :meth:`HmsMemoryBackend.watch`. Use it as an async iterator, best inside
    ``async with`` (which listens from its start and ends the subscription at its end)::

        async with backend.watch("/memories/notes") as changes:
            async for change in changes:
                print(change.op, change.path)

    Iterated without ``async with``, it listens from the first ``__anext__`` and until
    :meth:`aclose`."""

    def __init__(
        self,
        *,
        namespace: Callable[[], Awaitable[str]],
        path: str,
        client: Callable[[], Client],
        changes: ConnectionChanges,
        lost: Callable[[str], None] = lambda _: None,
        new_session: Callable[[Client], Awaitable[bool]] | None = None,
    ) -> None:
        self.path = path
        self.namespace = ""
        self.uri = ""
        self._namespace_of = namespace
        self._client = client
        self._changes = changes
        self._lost = lost
        self._new_session = new_session
        #: Why the connection ended under the watch, once it has.
        self._ended: str | None = None
        self._waiting: deque[MemoryChange] = deque()
        self._moves: deque[object] = deque(maxlen=_MOVES_REMEMBERED)
        self._wakeup = anyio.Event()
        self._started = False
        self._closed = False

    async def start(self) -> None:
        """Subscribes; once it returns, every later change is told."""
        if self._started:
            return
        self._started = True
        self.namespace = await self._namespace_of()
        self.uri = memory_uri(self.namespace, self.path)
        try:
            await self._changes.add(self._client(), self)
        except MCPError as error:
            self._closed = True
            if error.code == mcp_types.METHOD_NOT_FOUND:
                raise HmsMcpError(
                    "UNSUPPORTED",
                    "this hms-mcp has no change notifications: upgrade it to watch files",
                ) from error
            raise HmsMcpError("INVALID_ARGUMENT", error.message) from error

    async def aclose(self) -> None:
        """Ends the watch (and the subscription, if it was the last of its URI)."""
        if self._closed:
            return
        self._closed = True
        self._wakeup.set()
        if self._started:
            await self._changes.remove(self._client(), self)

    def end(self, reason: str) -> None:
        """The connection ended: the watch tells what it holds, then ends (see __anext__)."""
        if self._ended is None:
            self._ended = reason
        self._wakeup.set()

    def tell(self, change: MemoryChange) -> None:
        if self._closed:
            return
        if len(self._waiting) >= MAX_WAITING:
            self._waiting.clear()
            change = MemoryChange("overflow", self.path, None)
        self._waiting.append(change)
        self._wakeup.set()

    def tell_move(self, seq: object, path: str, from_path: str) -> None:
        if seq in self._moves:
            return
        self._moves.append(seq)
        self.tell(MemoryChange("move", path, from_path))

    async def __aenter__(self) -> Watch:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> Watch:
        return self

    async def __anext__(self) -> MemoryChange:
        await self.start()
        while not self._waiting:
            if self._closed or self._ended == CLOSED:
                raise StopAsyncIteration
            if self._ended is not None:
                raise HmsConnectionError(
                    "CONNECTION_CLOSED", f"{self._ended} The watch of {self.path} ended."
                )
            with anyio.move_on_after(KEEPALIVE_SECONDS) as waited:
                await self._wakeup.wait()
            if waited.cancelled_caught:
                await self._check_connection()
            else:
                self._wakeup = anyio.Event()
        return self._waiting.popleft()

    async def _check_connection(self) -> None:
        """Pings the server; a connection that is gone ends every call and watch on it."""
        stale = self._client()
        try:
            with _handshake_era():
                await stale.send_ping()
        except MCPError as error:
            if session_forgotten(error):
                # The server forgot the session (it restarted): the watches move to a new one.
                if self._new_session is not None and await self._new_session(stale):
                    return
            elif error.code == mcp_types.REQUEST_TIMEOUT:
                return  # a busy server: the connection stands
            elif error.code == mcp_types.CONNECTION_CLOSED:
                self._lost(repr(error))
            self.end(f"hms-mcp stopped answering on this connection ({error.message}).")
        except _CONNECTION_GONE as error:
            self._lost(repr(error))
            self.end(f"The connection to hms-mcp was lost ({error!r}).")
