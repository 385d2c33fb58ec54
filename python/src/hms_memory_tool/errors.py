"""Errors of hms-mcp and of the connection to it.

Errors of the commands themselves are :class:`~hms_memory_tool.core.MemoryToolError`.
"""

from __future__ import annotations

from anthropic.lib.tools import ToolError


class HmsMcpError(ToolError):
    """hms-mcp refused a call for a reason the memory engine does not handle itself, or the
    connection to it failed.

    It is the Anthropic SDK's :class:`~anthropic.lib.tools.ToolError`, so inside the SDK's
    tool runner Claude is told what happened (``is_error: true``) and the conversation goes
    on. ``code`` is the hms-mcp error code (``INVALID_ARGUMENT``, ``NAMESPACE_DISABLED``,
    ``UNAVAILABLE``, ``INTERNAL``, ...) or one of this package's: ``CONNECTION_CLOSED``,
    ``TIMEOUT``, ``PROTOCOL``.
    """

    code: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0])


class HmsConnectionError(HmsMcpError):
    """The connection to hms-mcp is gone (the server process exited, the network dropped, or
    the tool was closed) or the server stopped answering. Calls fail at once from then on;
    connect again to go on."""


class HmsMcpNotFoundError(FileNotFoundError):
    """No hms-mcp server to start: neither ``command`` nor ``url`` was given, ``HMS_MCP_BIN``
    is not set, and no ``hms-mcp`` executable is on ``PATH``."""
