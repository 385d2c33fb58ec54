"""Claude's memory tool (``memory_20250818``) served from a durable, searchable Holographic
Memory store through hms-mcp.

Use it with the Anthropic SDK's tool runner::

    from hms_memory_tool import HolographicMemoryToolSync

    with HolographicMemoryToolSync.connect(command="hms-mcp") as memory:
        client.beta.messages.tool_runner(..., tools=[memory, memory.recall_tool()])

The modules mirror the TypeScript packages: :mod:`hms_memory_tool.paths` (``@hms/memory-paths``:
the path validator, usable alone), :mod:`hms_memory_tool.core` (``@hms/memory-core``: the
command engine and ``memory_recall`` over any backend), :mod:`hms_memory_tool.hms_backend`
(``@hms/memory-backend-hms``: the backend over hms-mcp), :mod:`hms_memory_tool.protocol`
(``@hms/protocol``: the hms-mcp contract), and :mod:`hms_memory_tool.tool` with
:mod:`hms_memory_tool.errors` (``holographic-memory-claude-tool``: the SDK glue).
"""

from hms_memory_tool.core import (
    HolographicMemoryError,
    InMemoryBackend,
    MemoryBackend,
    MemoryBackendError,
    MemoryEngine,
    MemoryToolError,
    RecallHit,
    RetryPolicy,
    format_recall,
)
from hms_memory_tool.hms_backend import (
    HmsConnectionError,
    HmsMcpError,
    HmsMcpNotFoundError,
    HmsMemoryBackend,
    connect_hms_backend,
)
from hms_memory_tool.hybrid import HybridModelError, hybrid_model_dir
from hms_memory_tool.paths import MemoryPathError, check_memory_path, validate_memory_path
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
    "HmsMcpError",
    "HmsMcpNotFoundError",
    "HmsMemoryBackend",
    "HolographicMemoryError",
    "HolographicMemoryTool",
    "HolographicMemoryToolSync",
    "HybridModelError",
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
    "connect_hms_backend",
    "format_recall",
    "hybrid_model_dir",
    "validate_memory_path",
]
