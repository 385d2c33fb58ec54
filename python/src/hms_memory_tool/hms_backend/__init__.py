"""The memory backend over hms-mcp, the Holographic Memory server: the Python side of
``@hms/memory-backend-hms``.

:func:`connect_hms_backend` starts hms-mcp (stdio) or reaches it (streamable HTTP), checks
that it speaks this client's protocol version and yields an :class:`HmsMemoryBackend`.
"""

from .backend import HmsHistoryOperations, HmsMemoryBackend, HmsTreeOperations
from .command_context import COMMAND_META_KEY, run_as_command
from .connect import DEFAULT_TIMEOUT, check_protocol_version, connect_hms_backend
from .errors import CLOSED, CONNECTION_LOST, HmsConnectionError, HmsMcpError, HmsMcpNotFoundError
from .find_server import ServerCommand, find_server, server_environment
from .watch import Watch, memory_uri

__all__ = [
    "CLOSED",
    "COMMAND_META_KEY",
    "CONNECTION_LOST",
    "DEFAULT_TIMEOUT",
    "HmsConnectionError",
    "HmsHistoryOperations",
    "HmsMcpError",
    "HmsMcpNotFoundError",
    "HmsMemoryBackend",
    "HmsTreeOperations",
    "ServerCommand",
    "Watch",
    "check_protocol_version",
    "connect_hms_backend",
    "find_server",
    "memory_uri",
    "run_as_command",
    "server_environment",
]
