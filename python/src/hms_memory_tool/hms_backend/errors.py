"""Errors of hms-mcp and of the connection to it: the Python side of
``@hms/memory-backend-hms`` ``errors.ts``.

Refusals the memory engine acts on (``NOT_FOUND``, ``EXISTS``, ``VERSION_CONFLICT``,
``TOO_LARGE``, ``PATH_CONFLICT``, and a tree move's ``INVALID_ARGUMENT`` with a ``reason``) are
:class:`~hms_memory_tool.core.MemoryBackendError` instead; these are everything else.
"""

from __future__ import annotations

from typing import Final

import mcp_types
from mcp.shared.exceptions import MCPError

from hms_memory_tool.core import HolographicMemoryError
from hms_memory_tool.paths import HmsError

#: Why every call fails once the connection is lost (a failed call adds what it failed with).
CONNECTION_LOST: Final = (
    "The connection to the hms-mcp memory server is closed (the server process exited, the "
    "network connection dropped, or the memory tool was closed), so memory commands cannot "
    "run; connect again to go on."
)

#: Why every call fails after the tool was closed.
CLOSED: Final = (
    "The memory tool is closed: its connection to hms-mcp was shut down. Connect again to go on."
)


class HmsMcpError(HolographicMemoryError):
    """hms-mcp refused a call for a reason the memory engine does not handle itself, or the
    connection to it failed.

    A :class:`~hms_memory_tool.core.HolographicMemoryError` (the SDK's ``ToolError``), so
    inside the SDK's tool runner Claude is told what happened (``is_error: true``) and the
    conversation goes on. ``code`` is the hms-mcp error code (``INVALID_ARGUMENT``,
    ``NAMESPACE_DISABLED``, ``STORAGE_FULL`` (the disk holding the store is full; deleting
    still works), ``UNAVAILABLE``, ``INTERNAL``, ...) or one of this package's:
    ``CONNECTION_CLOSED``, ``TIMEOUT``, ``PROTOCOL`` (an answer that is not what hms-mcp of
    this protocol version sends, or a server of another protocol version).
    """


class HmsConnectionError(HmsMcpError):
    """The connection to hms-mcp is gone (the server process exited, the network dropped, or
    the tool was closed) or the server stopped answering. Calls fail at once from then on;
    connect again to go on."""


class HmsMcpNotFoundError(HmsError, FileNotFoundError):
    """No hms-mcp server to start: neither ``command`` nor ``url`` was given, ``HMS_MCP_BIN``
    is not set, and no ``hms-mcp`` executable is on ``PATH``."""


def session_forgotten(error: MCPError) -> bool:
    """Whether the server answered HTTP 404 for the session (it restarted, or dropped an idle
    session): hms-mcp's JSON-RPC error -32001 "Session not found", or the MCP SDK's stand-in
    for a 404 without one. The MCP SDK uses -32001 for its own request timeouts too: those
    are not a forgotten session (sending the call again on a new one could make a change
    twice)."""
    if error.code == -32001:
        return error.message.startswith("Session not found")
    return error.code == mcp_types.INVALID_REQUEST and error.message == "Session terminated"
