"""A real hms-mcp over HTTP that forgets the client's session (it restarts): the tool opens a
new session once and sends the call again; a second 404 is an error. Requests go through a
small HTTP relay in the test that forwards them to the server and counts them (and, for the
second case, answers tool calls with 404 itself, as hms-mcp does for an unknown session)."""

from __future__ import annotations

import json
import sqlite3
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hms_memory_tool import HmsConnectionError, HolographicMemoryToolSync
from hms_memory_tool.hms_backend import HmsMcpError
from tests.support.servers import http_server
from tests.support.store_files import store_file

_FORGOTTEN = {"code": -32001, "message": "Session not found; initialize a new session"}


class Relay:
    """Forwards requests to ``upstream``, counting initialize requests and tool calls."""

    def __init__(self) -> None:
        self.upstream = ""
        self.initializes = 0
        self.tool_calls = 0
        self.not_found = 0
        self.forgetting = False  # answer every tool call with 404
        self.lock = threading.Lock()


def _handler(relay: Relay) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return None

        def _relay(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            method = json.loads(body).get("method") if body else None
            with relay.lock:
                relay.initializes += method == "initialize"
                relay.tool_calls += method == "tools/call"
            if relay.forgetting and method == "tools/call" and "mcp-session-id" in self.headers:
                with relay.lock:
                    relay.not_found += 1
                answer = json.dumps({"jsonrpc": "2.0", "error": _FORGOTTEN, "id": None}).encode()
                self._answer(404, {"content-type": "application/json"}, answer)
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host",)}
            request = urllib.request.Request(
                relay.upstream, data=body or None, headers=headers, method=self.command
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    status, out, data = response.status, dict(response.headers), response.read()
            except urllib.error.HTTPError as error:
                status, out, data = error.code, dict(error.headers), error.read()
            if status == 404:
                with relay.lock:
                    relay.not_found += 1
            self._answer(status, out, data)

        def _answer(self, status: int, headers: dict[str, str], data: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = _relay
        do_GET = _relay
        do_DELETE = _relay

    return Handler


@contextmanager
def relay_server() -> Iterator[tuple[Relay, str]]:
    relay = Relay()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(relay))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield relay, f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


def test_a_restarted_server_gets_one_new_session_and_the_call_again(tmp_path: Path) -> None:
    with relay_server() as (relay, url):
        with http_server(tmp_path / "data", None) as first:
            relay.upstream = first.url
            memory = HolographicMemoryToolSync.connect(url=url)
            memory.call({"command": "create", "path": "/memories/a.md", "file_text": "kept\n"})
            assert relay.initializes == 1
        try:
            # A new server process on the same store: the session id means nothing to it.
            with http_server(tmp_path / "data", None) as second:
                relay.upstream = second.url
                out = memory.call({"command": "view", "path": "/memories/a.md"})
                assert out.endswith("kept")
                assert (relay.initializes, relay.not_found) == (2, 1)
                memory.call({"command": "view", "path": "/memories"})
                assert relay.initializes == 2  # the new session serves later calls
        finally:
            memory.close()


def test_a_second_404_on_the_new_session_is_an_error(tmp_path: Path) -> None:
    with relay_server() as (relay, url), http_server(tmp_path / "data", None) as served:
        relay.upstream = served.url
        with HolographicMemoryToolSync.connect(url=url) as memory:
            before = (relay.initializes, relay.tool_calls)
            relay.forgetting = True
            with pytest.raises(HmsConnectionError) as caught:
                memory.call({"command": "view", "path": "/memories"})
            assert str(caught.value).endswith(
                "hms-mcp answered the list call with HTTP 404 (it does not know this client's "
                "session) on a session opened just before, so this client stopped retrying."
            )
            # One new session, and the call sent twice in all.
            assert (relay.initializes - before[0], relay.tool_calls - before[1]) == (1, 2)


def test_a_call_that_times_out_is_a_timeout_not_a_lost_session(tmp_path: Path) -> None:
    """The MCP SDK gives its own timeouts the code hms-mcp gives a forgotten session (-32001).
    A timed-out call must not be sent again on a new session: the server may still make the
    change, and sending it again could make it twice."""
    data = tmp_path / "data"
    with (
        relay_server() as (relay, url),
        http_server(data, None, "--busy-timeout", "60000") as served,
    ):
        relay.upstream = served.url
        with HolographicMemoryToolSync.connect(url=url, timeout=1.0) as memory:
            memory.call({"command": "create", "path": "/memories/a.md", "file_text": "a\n"})
            before = (relay.initializes, relay.tool_calls)
            # Another process holds the store's write lock: the server waits for it, the
            # client stops waiting after its 1 s.
            lock = sqlite3.connect(store_file(data), timeout=10, isolation_level=None)
            try:
                lock.execute("BEGIN IMMEDIATE")
                with pytest.raises(HmsMcpError) as caught:
                    memory.call({"command": "create", "path": "/memories/b.md", "file_text": "b\n"})
                lock.execute("ROLLBACK")
            finally:
                lock.close()
            assert caught.value.code == "TIMEOUT"
            # Sent once, on the same session, which still serves calls.
            assert (relay.initializes - before[0], relay.tool_calls - before[1]) == (0, 1)
            assert memory.call({"command": "view", "path": "/memories/a.md"}).endswith("a")
