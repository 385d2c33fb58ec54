"""The memory backend over hms-mcp, the Holographic Memory server: the Python side of
``@hms/memory-backend-hms``.

:func:`connect_hms_backend` starts hms-mcp (stdio) or reaches it (streamable HTTP), checks
that it speaks this client's protocol version and yields an :class:`HmsMemoryBackend`.
"""

from .backend import HmsMemoryBackend, HmsTreeOperations
from .connect import DEFAULT_TIMEOUT, check_protocol_version, connect_hms_backend
from .errors import CLOSED, CONNECTION_LOST, HmsConnectionError, HmsMcpError, HmsMcpNotFoundError
from .find_server import ServerCommand, find_server, server_environment

__all__ = [
    "CLOSED",
    "CONNECTION_LOST",
    "DEFAULT_TIMEOUT",
    "HmsConnectionError",
    "HmsMcpError",
    "HmsMcpNotFoundError",
    "HmsMemoryBackend",
    "HmsTreeOperations",
    "ServerCommand",
    "check_protocol_version",
    "connect_hms_backend",
    "find_server",
    "server_environment",
]
