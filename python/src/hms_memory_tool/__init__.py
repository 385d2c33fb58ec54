"""Claude's memory tool (``memory_20250818``) served from a durable, searchable Holographic
Memory store through hms-mcp.

Use it with the Anthropic SDK's tool runner::

    from hms_memory_tool import HolographicMemoryToolSync

    with HolographicMemoryToolSync.connect(command="hms-mcp") as memory:
        client.beta.messages.tool_runner(..., tools=[memory, memory.recall_tool()])

Subpackages: :mod:`hms_memory_tool.paths` (the path validator, usable alone),
:mod:`hms_memory_tool.core` (the command engine over any backend),
:mod:`hms_memory_tool.hms_backend` (the backend over hms-mcp), :mod:`hms_memory_tool.recall`
(the ``memory_recall`` tool and its text format).
"""

from hms_memory_tool.core import (
    InMemoryBackend,
    MemoryBackend,
    MemoryBackendError,
    MemoryEngine,
    MemoryToolError,
    RetryPolicy,
)
from hms_memory_tool.errors import HmsConnectionError, HmsMcpError, HmsMcpNotFoundError
from hms_memory_tool.hms_backend import HmsMcpBackend, open_hms_backend
from hms_memory_tool.paths import MemoryPathError, check_memory_path, validate_memory_path
from hms_memory_tool.recall import RecallHit, format_recall
from hms_memory_tool.tool import (
    AsyncMemoryRecallTool,
    HolographicMemoryTool,
    HolographicMemoryToolSync,
    MemoryRecallTool,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncMemoryRecallTool",
    "HmsConnectionError",
    "HmsMcpBackend",
    "HmsMcpError",
    "HmsMcpNotFoundError",
    "HolographicMemoryTool",
    "HolographicMemoryToolSync",
    "InMemoryBackend",
    "MemoryBackend",
    "MemoryBackendError",
    "MemoryEngine",
    "MemoryPathError",
    "MemoryRecallTool",
    "MemoryToolError",
    "RecallHit",
    "RetryPolicy",
    "__version__",
    "check_memory_path",
    "format_recall",
    "open_hms_backend",
    "validate_memory_path",
]
