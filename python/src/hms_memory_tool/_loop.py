"""An asyncio event loop in a background thread, for the synchronous tool.

The MCP client and the engine are asynchronous; the synchronous tool runs them on one loop
of its own, in a daemon thread, and hands each call over with
:func:`asyncio.run_coroutine_threadsafe`. Any number of threads may call at once (their
coroutines interleave on the loop like tasks); the loop's own thread may not, since it would
wait for itself.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import threading
import warnings
import weakref
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, TypeVar

from hms_memory_tool.hms_backend.errors import CLOSED, HmsConnectionError

T = TypeVar("T")

log = logging.getLogger("hms_memory_tool")

#: How long closing waits for the connection to shut down and the thread to end, in seconds.
CLOSE_TIMEOUT: Final = 15.0

_live: weakref.WeakSet[LoopThread] = weakref.WeakSet()


class LoopThread:
    """Runs coroutines on a private event loop in a daemon thread."""

    def __init__(self, name: str = "hms-memory-tool") -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()
        self._closed = False
        self._holder: concurrent.futures.Future[None] | None = None
        self._release: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        _live.add(self)

    @property
    def closed(self) -> bool:
        return self._closed

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Runs ``coroutine`` on the loop and returns its result (or raises its error)."""
        if threading.current_thread() is self._thread:
            _discard(coroutine)
            raise RuntimeError(
                "HolographicMemoryToolSync was called from its own event loop thread, where "
                "waiting for the result would deadlock. Call it from another thread, or use "
                "the async HolographicMemoryTool in async code."
            )
        with self._lock:
            if self._closed:
                _discard(coroutine)
                raise HmsConnectionError("CONNECTION_CLOSED", CLOSED)
            future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise HmsConnectionError(
                "CONNECTION_CLOSED",
                "The memory tool was closed while this call was running; whether the change "
                "was made is not known. Connect again and view the file.",
            ) from None

    def hold(self, context: AbstractAsyncContextManager[T]) -> T:
        """Enters ``context`` in a task on the loop, returns what it yields, and keeps it
        entered until :meth:`close` (so it is entered and exited in the same task, as anyio
        requires)."""
        entered: concurrent.futures.Future[T] = concurrent.futures.Future()

        async def holder() -> None:
            self._release = asyncio.Event()
            try:
                async with context as value:
                    entered.set_result(value)
                    await self._release.wait()
            except BaseException as error:
                if not entered.done():
                    entered.set_exception(error)
                    return
                raise

        self._holder = asyncio.run_coroutine_threadsafe(holder(), self._loop)
        return entered.result()

    def close(self) -> None:
        """Exits the held context (closing the connection and stopping a server process),
        stops the loop and ends the thread. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        _live.discard(self)
        if threading.current_thread() is self._thread:
            # Closing from the loop itself: let the loop wind down once this callback returns.
            if self._release is not None:
                self._release.set()
            self._loop.call_soon(self._loop.stop)
            return
        if self._holder is not None and self._release is not None:
            # A connection that failed earlier has already been reported to every caller.
            failed_earlier = self._holder.done()
            self._loop.call_soon_threadsafe(self._release.set)
            try:
                self._holder.result(CLOSE_TIMEOUT)
            except Exception:
                level = logging.DEBUG if failed_earlier else logging.WARNING
                log.log(level, "the connection to hms-mcp ended with an error", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CLOSE_TIMEOUT)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            if pending:
                gathered = asyncio.gather(*pending, return_exceptions=True)
                self._loop.run_until_complete(gathered)
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()


@atexit.register
def _close_all() -> None:
    """At interpreter exit, close every tool still open, so no server process is left."""
    for runner in list(_live):
        runner.close()


def _discard(coroutine: Coroutine[Any, Any, object]) -> None:
    """Drops a call's coroutine that will not run. Closing a coroutine that never started
    warns that it was never awaited; here that is the point, so the warning is not shown."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        coroutine.close()
