"""Every error the package raises, in one place: the Python side of
``holographic-memory-claude-tool`` ``errors.ts``.

The hierarchy (recognise each with ``isinstance``; every one is an ``HmsError``)::

    HmsError
    ├── HolographicMemoryError       every refusal the tool reports to Claude; code, message
    │   │                            (also the SDK's anthropic.lib.tools.ToolError)
    │   ├── MemoryToolError          a command or a recall was refused (code: not_found, ...)
    │   └── HmsMcpError              hms-mcp refused a call (code: the server's, or PROTOCOL)
    │       └── HmsConnectionError   the connection is gone (CONNECTION_CLOSED, TIMEOUT)
    ├── MemoryBackendError           a backend's refusal, which the engine turns into a
    │                                MemoryToolError (only a backend's own code sees it)
    ├── MemoryPathError              a path broke a rule (also a ValueError)
    └── HmsMcpNotFoundError          no hms-mcp to start (also a FileNotFoundError)

The SDK's tool runner sends Claude the message of a ``ToolError`` with ``is_error: true``, so
every :class:`HolographicMemoryError` reaches Claude as exactly its message. Unlike the
TypeScript package, which turns the engine's and hms-mcp's errors into its own
``HolographicMemoryError`` at the tool boundary, here they already are one.
"""

from hms_memory_tool.core import HolographicMemoryError, MemoryBackendError, MemoryToolError
from hms_memory_tool.hms_backend import HmsConnectionError, HmsMcpError, HmsMcpNotFoundError
from hms_memory_tool.paths import MemoryPathError

__all__ = [
    "HmsConnectionError",
    "HmsMcpError",
    "HmsMcpNotFoundError",
    "HolographicMemoryError",
    "MemoryBackendError",
    "MemoryPathError",
    "MemoryToolError",
]
