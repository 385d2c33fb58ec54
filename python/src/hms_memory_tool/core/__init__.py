"""The command engine of Claude's memory tool over any storage.

A faithful port of the TypeScript package ``@hms/memory-core``: :class:`MemoryEngine` runs
``view``, ``create``, ``str_replace``, ``insert``, ``delete``, ``rename`` and
``memory_recall`` against a :class:`MemoryBackend` with the same rules, the same strings
(pinned by the shared vectors in ``packages/memory-core/vectors/``) and the same
compare-and-set retries. A raw command is parsed once (:func:`parse_command`) into one of the
:data:`Command` dataclasses, then run.

>>> import anyio
>>> engine = MemoryEngine(InMemoryBackend())
>>> anyio.run(engine.execute, {"command": "create", "path": "/memories/a.md", "file_text": "x"})
'File created successfully at: /memories/a.md'
>>> parse_command({"command": "view", "path": "/memories", "view_range": None})
ViewCommand(path='/memories', view_range=None)
"""

from . import _messages as messages
from ._backend import (
    FileChange,
    FileEntry,
    HistoryOperations,
    MemoryBackend,
    MemoryBackendError,
    MemoryBackendErrorCode,
    MemoryVersion,
    RecallBackend,
    RecallHit,
    StoredFile,
    TreeOperations,
)
from ._commands import (
    COMMAND_TYPES,
    MEMORY_COMMANDS,
    Command,
    CreateCommand,
    DeleteCommand,
    InsertCommand,
    MemoryCommandName,
    RenameCommand,
    StrReplaceCommand,
    ViewCommand,
    command_input,
    describe_value,
    is_integer,
    parse_command,
    parse_command_as,
)
from ._engine import (
    DEFAULT_CAS_ATTEMPTS,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_VIEW_CHARS,
    MemoryEngine,
)
from ._errors import HolographicMemoryError, MemoryToolError, MemoryToolErrorCode
from ._format import human_size, numbered_line, split_lines
from ._in_memory import BackendOperation, InMemoryBackend
from ._recall import (
    DEFAULT_RECALL_K,
    MAX_QUERY_BYTES,
    MAX_RECALL_K,
    NO_RECALL_HITS,
    RECALL_BY_TIME_UNSUPPORTED,
    RECALL_INPUT_SCHEMA,
    RECALL_TOOL_DESCRIPTION,
    RECALL_TOOL_NAME,
    RecallInput,
    format_recall,
    format_score,
    parse_recall_input,
    recall_tool_definition,
)
from ._retry import DEFAULT_RETRY_POLICY, RetryPolicy

__all__ = [
    "COMMAND_TYPES",
    "DEFAULT_CAS_ATTEMPTS",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_VIEW_CHARS",
    "DEFAULT_RECALL_K",
    "DEFAULT_RETRY_POLICY",
    "MAX_QUERY_BYTES",
    "MAX_RECALL_K",
    "MEMORY_COMMANDS",
    "NO_RECALL_HITS",
    "RECALL_BY_TIME_UNSUPPORTED",
    "RECALL_INPUT_SCHEMA",
    "RECALL_TOOL_DESCRIPTION",
    "RECALL_TOOL_NAME",
    "BackendOperation",
    "Command",
    "CreateCommand",
    "DeleteCommand",
    "FileChange",
    "FileEntry",
    "HistoryOperations",
    "HolographicMemoryError",
    "InMemoryBackend",
    "InsertCommand",
    "MemoryBackend",
    "MemoryBackendError",
    "MemoryBackendErrorCode",
    "MemoryCommandName",
    "MemoryEngine",
    "MemoryToolError",
    "MemoryToolErrorCode",
    "MemoryVersion",
    "RecallBackend",
    "RecallHit",
    "RecallInput",
    "RenameCommand",
    "RetryPolicy",
    "StoredFile",
    "StrReplaceCommand",
    "TreeOperations",
    "ViewCommand",
    "command_input",
    "describe_value",
    "format_recall",
    "format_score",
    "human_size",
    "is_integer",
    "messages",
    "numbered_line",
    "parse_command",
    "parse_command_as",
    "parse_recall_input",
    "recall_tool_definition",
    "split_lines",
]
