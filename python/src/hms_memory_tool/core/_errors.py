"""The error every failed memory command raises."""

from __future__ import annotations

from typing import Literal

from anthropic.lib.tools import ToolError

from hms_memory_tool.paths import MemoryPathRule

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
]


class MemoryToolError(ToolError):
    """A memory command failed.

    It is the Anthropic SDK's :class:`~anthropic.lib.tools.ToolError`, so the SDK's tool
    runner returns ``str(error)`` (the message, for Claude) with ``is_error: true``. ``code``
    is stable, for programs; ``path_rule`` names the broken rule of an ``invalid_path``.
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
        super().__init__(message)
        self.code = code
        self.path_rule = path_rule

    @property
    def message(self) -> str:
        """The message, exactly as the TypeScript engine words it."""
        return str(self.args[0])

    def __repr__(self) -> str:
        return f"MemoryToolError({self.code!r}, {self.message!r})"
