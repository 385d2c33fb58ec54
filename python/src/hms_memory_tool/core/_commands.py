"""Run-time checks of command input, mirrored from ``@hms/memory-core`` ``src/commands.ts``.

Commands come from a model through an SDK that does not validate them, so every field is
checked here, before storage is touched. Input is the command as JSON decodes it: a ``dict``
whose absent fields are absent (:data:`~hms_memory_tool.paths.MISSING`), not ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final, Literal, cast

from hms_memory_tool.paths import MISSING, check_memory_path, display_path

from ._errors import MemoryToolError

#: A command name.
MemoryCommandName = Literal["view", "create", "str_replace", "insert", "delete", "rename"]

#: The command names, in the order the tool documents them.
MEMORY_COMMANDS: Final[tuple[MemoryCommandName, ...]] = (
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
)

#: Integers are at most this large in magnitude (2^53 - 1), as in JavaScript.
MAX_SAFE_INTEGER: Final = 9_007_199_254_740_991

CommandInput = Mapping[str, object]


def describe_value(value: object) -> str:
    """How a JSON value is named in messages; the same words as the TypeScript engine."""
    if value is MISSING:
        return "nothing"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        if is_integer(value):
            return "an integer"
        # Say why a number is not an integer here, so the caller knows what to change.
        if isinstance(value, int) or (math.isfinite(value) and value.is_integer()):
            return "an integer too large to be exact"
        return "a fractional number" if math.isfinite(value) else "a number"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


def positive_option(name: str, value: int | None) -> int | None:
    """An optional positive-integer setting, checked (``ValueError`` otherwise)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def is_integer(value: object) -> bool:
    """Whether ``value`` is an integer as JSON means it: a number with no fractional part and
    a magnitude of at most 2^53 - 1 (``3.0`` counts as 3); booleans are not integers."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return value.is_integer() and abs(value) <= MAX_SAFE_INTEGER
    return False


def command_name(command: object) -> MemoryCommandName:
    """The command name of ``command``, checked."""
    if not isinstance(command, Mapping):
        raise MemoryToolError(
            "invalid_command",
            'Invalid memory command: expected an object with a "command" field, '
            f"got {describe_value(command)}.",
        )
    name = cast(Mapping[str, object], command).get("command", MISSING)
    if not isinstance(name, str):
        raise MemoryToolError(
            "invalid_command",
            'Invalid memory command: the "command" field must be one of '
            f"{', '.join(MEMORY_COMMANDS)}; got {describe_value(name)}.",
        )
    if name not in MEMORY_COMMANDS:
        raise MemoryToolError(
            "invalid_command",
            f"Unknown memory command `{display_path(name)}`. "
            f"Use one of: {', '.join(MEMORY_COMMANDS)}.",
        )
    return name


def _missing(command: str, name: str) -> MemoryToolError:
    return MemoryToolError(
        "invalid_argument", f"Missing required parameter `{name}` for the {command} command."
    )


def _wrong_type(name: str, expected: str, value: object) -> MemoryToolError:
    return MemoryToolError(
        "invalid_argument",
        f"Invalid `{name}` parameter: expected {expected}, got {describe_value(value)}.",
    )


def path_parameter(command: CommandInput, command_name: str, name: str) -> str:
    """A path parameter: present, a string, and a valid memory path."""
    value = command.get(name, MISSING)
    if value is MISSING:
        raise _missing(command_name, name)
    if not isinstance(value, str):
        raise _wrong_type(name, "a string", value)
    error = check_memory_path(value)
    if error is not None:
        raise MemoryToolError("invalid_path", error.message, path_rule=error.rule) from error
    return value


def text_parameter(command: CommandInput, command_name: str, name: str) -> str:
    """A required text parameter: present, a string, and valid Unicode."""
    value = optional_text_parameter(command, command_name, name, optional=False)
    assert value is not None
    return value


def optional_text_parameter(
    command: CommandInput, command_name: str, name: str, *, optional: bool = True
) -> str | None:
    """A text parameter that may be absent or ``null`` (then ``None``) when ``optional``."""
    value = command.get(name, MISSING)
    if value is MISSING or (optional and value is None):
        if optional:
            return None
        raise _missing(command_name, name)
    if not isinstance(value, str):
        raise _wrong_type(name, "a string", value)
    surrogate = first_unpaired_surrogate(value)
    if surrogate is not None:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `{name}` parameter: it contains an unpaired surrogate (U+{surrogate:X}), "
            "which is not valid Unicode text. Send complete characters only.",
        )
    return value


def integer_parameter(command: CommandInput, command_name: str, name: str) -> int:
    """An integer parameter (see :func:`is_integer`), returned as an ``int``."""
    value = command.get(name, MISSING)
    if value is MISSING:
        raise _missing(command_name, name)
    if not is_integer(value):
        raise _wrong_type(name, "an integer", value)
    return int(cast(float, value))


def view_range_parameter(command: CommandInput) -> tuple[int, int] | None:
    """``view_range``: absent/null, or exactly two integers (checked against the file later)."""
    value = command.get("view_range", MISSING)
    if value is MISSING or value is None:
        return None
    expected = "[start, end] or [start, -1] (two integers)"
    if not isinstance(value, (list, tuple)):
        raise _wrong_type("view_range", expected, value)
    items = cast("list[object]", list(value))
    if len(items) != 2:
        plural = "" if len(items) == 1 else "s"
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `view_range` parameter: expected {expected}, got an array of "
            f"{len(items)} item{plural}.",
        )
    for item in items:
        if not is_integer(item):
            raise MemoryToolError(
                "invalid_argument",
                f"Invalid `view_range` parameter: expected {expected}, got an array holding "
                f"{describe_value(item)}.",
            )
    return int(cast(float, items[0])), int(cast(float, items[1]))


def first_unpaired_surrogate(text: str) -> int | None:
    """The code point of the first lone surrogate in ``text``, or ``None``.

    Python's JSON decoder joins a surrogate pair into one code point, so any surrogate code
    point left in a ``str`` is unpaired.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:  # UTF-8 refuses nothing but surrogates
        return ord(text[error.start])
    return None
