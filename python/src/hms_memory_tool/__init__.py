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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Imported when first used (PEP 562), so that `import hms_memory_tool.cli` (the `hms-mcp`
# command, which only starts the wheel's server) does not load the MCP and Anthropic SDKs.
_LAZY: dict[str, str] = {
    "HolographicMemoryError": "hms_memory_tool.core",
    "InMemoryBackend": "hms_memory_tool.core",
    "MemoryBackend": "hms_memory_tool.core",
    "MemoryBackendError": "hms_memory_tool.core",
    "MemoryEngine": "hms_memory_tool.core",
    "MemoryToolError": "hms_memory_tool.core",
    "RecallHit": "hms_memory_tool.core",
    "RetryPolicy": "hms_memory_tool.core",
    "format_recall": "hms_memory_tool.core",
    "HmsConnectionError": "hms_memory_tool.hms_backend",
    "HmsMcpError": "hms_memory_tool.hms_backend",
    "HmsMcpNotFoundError": "hms_memory_tool.hms_backend",
    "HmsMemoryBackend": "hms_memory_tool.hms_backend",
    "connect_hms_backend": "hms_memory_tool.hms_backend",
    "HybridModelError": "hms_memory_tool.hybrid",
    "hybrid_model_dir": "hms_memory_tool.hybrid",
    "MemoryPathError": "hms_memory_tool.paths",
    "check_memory_path": "hms_memory_tool.paths",
    "validate_memory_path": "hms_memory_tool.paths",
    "AsyncMemoryRecallTool": "hms_memory_tool.tool",
    "HolographicMemoryTool": "hms_memory_tool.tool",
    "HolographicMemoryToolSync": "hms_memory_tool.tool",
    "MemoryRecallTool": "hms_memory_tool.tool",
}

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hms_memory_tool' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
