"""The command engine of Claude's memory tool over any storage.

A faithful port of the TypeScript package ``@hms/memory-core``: :class:`MemoryEngine` runs
``view``, ``create``, ``str_replace``, ``insert``, ``delete`` and ``rename`` against a
:class:`MemoryBackend` with the same rules, the same strings (pinned by the shared vectors in
``packages/memory-core/vectors/commands.json``) and the same compare-and-set retries.

>>> import anyio
>>> engine = MemoryEngine(InMemoryBackend())
>>> anyio.run(engine.execute, {"command": "create", "path": "/memories/a.md", "file_text": "x"})
'File created successfully at: /memories/a.md'
"""

from . import _messages as messages
from ._backend import (
    AtomicOperations,
    FileEntry,
    MemoryBackend,
    MemoryBackendError,
    MemoryBackendErrorCode,
    MemoryVersion,
    StoredFile,
    TreeOperations,
    is_memory_backend_error,
)
from ._commands import MEMORY_COMMANDS, MemoryCommandName, describe_value, is_integer
from ._engine import (
    DEFAULT_CAS_ATTEMPTS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_VIEW_CHARS,
    MemoryEngine,
    command_input,
)
from ._errors import MemoryToolError, MemoryToolErrorCode
from ._format import human_size, numbered_line, split_lines
from ._in_memory import BackendOperation, InMemoryBackend
from ._retry import DEFAULT_RETRY_POLICY, RetryPolicy

__all__ = [
    "DEFAULT_CAS_ATTEMPTS",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_VIEW_CHARS",
    "DEFAULT_RETRY_POLICY",
    "MEMORY_COMMANDS",
    "AtomicOperations",
    "BackendOperation",
    "FileEntry",
    "InMemoryBackend",
    "MemoryBackend",
    "MemoryBackendError",
    "MemoryBackendErrorCode",
    "MemoryCommandName",
    "MemoryEngine",
    "MemoryToolError",
    "MemoryToolErrorCode",
    "MemoryVersion",
    "RetryPolicy",
    "StoredFile",
    "TreeOperations",
    "command_input",
    "describe_value",
    "human_size",
    "is_integer",
    "is_memory_backend_error",
    "messages",
    "numbered_line",
    "split_lines",
]
