"""The engine's error, and the base of every error the memory tool reports to Claude.

``HolographicMemoryError`` is the base of the engine's :class:`MemoryToolError` here and of
hms-mcp's ``HmsMcpError`` (in ``hms_memory_tool.hms_backend``). It is both an
:class:`~hms_memory_tool.paths.HmsError` (the base of the package's errors) and the Anthropic
SDK's :class:`~anthropic.lib.tools.ToolError`, so inside the SDK's tool runner Claude is told
the message with ``is_error: true`` and the conversation goes on. Recognise each with
``isinstance``; ``code`` says why, for programs. (TypeScript converts its engine's errors into
its tool's ``HolographicMemoryError`` at the tool boundary; here they already are one.)
"""

from __future__ import annotations

from typing import Literal

from anthropic.lib.tools import ToolError

from hms_memory_tool.paths import HmsError, MemoryPathRule

#: Why a memory command failed. Stable, and identical in the TypeScript package.
MemoryToolErrorCode = Literal[
    "invalid_command",  # the command is not an object, or names no known command
    "invalid_argument",  # a parameter is missing, has the wrong type, or is malformed
    "invalid_path",  # a path breaks a memory path rule; path_rule says which
    "out_of_range",  # view_range or insert_line lies outside the file
    "not_found",  # the path does not exist
    "already_exists",  # create found a file, or rename found its destination taken
    "not_a_file",  # str_replace / insert was given a directory
    "is_a_directory",  # create was given a directory
    "not_a_directory",  # a path lies under an existing file
    "no_match",  # str_replace found no occurrence of old_str
    "multiple_matches",  # str_replace found several occurrences of old_str
    "too_large",  # the result would be over the size limit; nothing was stored
    "forbidden",  # deleting or renaming /memories, or moving a directory into itself
    "conflict",  # concurrent writers kept winning the compare-and-set race
    "unsupported",  # the backend cannot do this (memory_recall on a backend without recall)
]


class HolographicMemoryError(HmsError, ToolError):
    """The base of every error the memory tool reports to Claude (see the module doc).

    ``str(error)`` and :attr:`message` are the message, worded for Claude; ``code`` is
    stable, for programs.
    """

    code: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        """The message, exactly as the TypeScript package words it."""
        return str(self.args[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class MemoryToolError(HolographicMemoryError):
    """A memory command (or a recall) was refused by the engine.

    ``code`` is one of :data:`MemoryToolErrorCode`; ``path_rule`` names the broken rule of an
    ``invalid_path``.
    """

    code: MemoryToolErrorCode
    path_rule: MemoryPathRule | None

    def __init__(
        self,
        code: MemoryToolErrorCode,
        message: str,
        *,
        path_rule: MemoryPathRule | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.path_rule = path_rule
