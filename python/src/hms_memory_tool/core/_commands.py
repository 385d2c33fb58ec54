"""The memory tool's commands, parsed once: the Python side of ``@hms/memory-core``
``src/commands.ts``.

Commands come from a model through an SDK that does not validate them. :func:`parse_command`
checks every field of one (with the messages both languages share) and returns it as one of
the frozen dataclasses below; the engine's handlers only ever see those. Input is the command
as JSON decodes it (a ``dict`` whose absent fields are absent, not ``None``; see
:data:`~hms_memory_tool.paths.MISSING`) or one of the Anthropic SDK's
``BetaMemoryTool20250818*Command`` models.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, TypeAlias, cast

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


@dataclass(frozen=True)
class ViewCommand:
    """``view``: a directory listing (2 levels) or a file's numbered lines."""

    command: ClassVar[Literal["view"]] = "view"
    path: str
    view_range: tuple[int, int] | None = None
    """``(start, end)`` or ``(start, -1)``, 1-based, inclusive; checked against the file when
    it is read."""


@dataclass(frozen=True)
class CreateCommand:
    """``create``: a new file; never overwrites."""

    command: ClassVar[Literal["create"]] = "create"
    path: str
    file_text: str


@dataclass(frozen=True)
class StrReplaceCommand:
    """``str_replace``: replaces the single occurrence of ``old_str`` (never empty)."""

    command: ClassVar[Literal["str_replace"]] = "str_replace"
    path: str
    old_str: str
    new_str: str = ""
    """What replaces it; an omitted or null ``new_str`` deletes the occurrence."""


@dataclass(frozen=True)
class InsertCommand:
    """``insert``: ``insert_text`` goes after line ``insert_line`` (0 is the top)."""

    command: ClassVar[Literal["insert"]] = "insert"
    path: str
    insert_line: int
    insert_text: str


@dataclass(frozen=True)
class DeleteCommand:
    """``delete``: a file, or a directory with everything under it."""

    command: ClassVar[Literal["delete"]] = "delete"
    path: str


@dataclass(frozen=True)
class RenameCommand:
    """``rename``: moves a file or a whole directory to a path that does not exist."""

    command: ClassVar[Literal["rename"]] = "rename"
    old_path: str
    new_path: str


#: Any memory command, checked (the TypeScript ``MemoryCommand`` union, parsed).
Command: TypeAlias = (
    ViewCommand | CreateCommand | StrReplaceCommand | InsertCommand | DeleteCommand | RenameCommand
)

#: Every command class.
COMMAND_TYPES: Final = (
    ViewCommand,
    CreateCommand,
    StrReplaceCommand,
    InsertCommand,
    DeleteCommand,
    RenameCommand,
)


def parse_command(raw: object) -> Command:
    """``raw`` as a checked :data:`Command`, or :class:`MemoryToolError` for the first field
    that is wrong, in the order of the command's fields; its ``command`` field says which
    command it is. A :data:`Command` is returned as it is."""
    if isinstance(raw, COMMAND_TYPES):
        return raw
    fields = _fields(raw)
    return _PARSERS[_command_name(fields)](fields)


def parse_command_as(name: MemoryCommandName, raw: object) -> Command:
    """``raw`` checked as a ``name`` command, whatever its own ``command`` field says (the
    SDK's per-command methods have already dispatched on it); raises like
    :func:`parse_command`. A :data:`Command` of that name is returned as it is."""
    if isinstance(raw, COMMAND_TYPES) and raw.command == name:
        return raw
    return _PARSERS[name](_fields(raw))


def _fields(raw: object) -> Mapping[str, object]:
    data = command_input(raw)
    if not isinstance(data, Mapping):
        raise MemoryToolError(
            "invalid_command",
            'Invalid memory command: expected an object with a "command" field, '
            f"got {describe_value(data)}.",
        )
    return cast(Mapping[str, object], data)


def _command_name(fields: Mapping[str, object]) -> MemoryCommandName:
    name = fields.get("command", MISSING)
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


def _parse_view(fields: Mapping[str, object]) -> ViewCommand:
    return ViewCommand(_path(fields, "view", "path"), _view_range(fields))


def _parse_create(fields: Mapping[str, object]) -> CreateCommand:
    return CreateCommand(_path(fields, "create", "path"), _text(fields, "create", "file_text"))


def _parse_str_replace(fields: Mapping[str, object]) -> StrReplaceCommand:
    path = _path(fields, "str_replace", "path")
    old_str = _text(fields, "str_replace", "old_str")
    new_str = _optional_text(fields, "new_str")
    if old_str == "":
        raise MemoryToolError(
            "invalid_argument",
            "Invalid `old_str` parameter: it is empty. Give the exact text to replace, with "
            f"enough surrounding text to appear only once in {path}.",
        )
    return StrReplaceCommand(path, old_str, new_str or "")


def _parse_insert(fields: Mapping[str, object]) -> InsertCommand:
    path = _path(fields, "insert", "path")
    line = _integer(fields, "insert", "insert_line")
    return InsertCommand(path, line, _text(fields, "insert", "insert_text"))


def _parse_delete(fields: Mapping[str, object]) -> DeleteCommand:
    return DeleteCommand(_path(fields, "delete", "path"))


def _parse_rename(fields: Mapping[str, object]) -> RenameCommand:
    old_path = _path(fields, "rename", "old_path")
    return RenameCommand(old_path, _path(fields, "rename", "new_path"))


_PARSERS: Final[dict[MemoryCommandName, Callable[[Mapping[str, object]], Command]]] = {
    "view": _parse_view,
    "create": _parse_create,
    "str_replace": _parse_str_replace,
    "insert": _parse_insert,
    "delete": _parse_delete,
    "rename": _parse_rename,
}


def command_input(command: object) -> object:
    """The command as a JSON-like mapping.

    A ``dict`` (as the tool runner passes it) is used as is. One of the Anthropic SDK's
    ``BetaMemoryTool20250818*Command`` models (a pydantic model) becomes the mapping of the
    fields it was given, so an absent field stays absent. Anything else is returned unchanged
    (and refused by the checks as "not an object").
    """
    if isinstance(command, Mapping):
        return command
    fields_set = getattr(command, "model_fields_set", None)
    if isinstance(fields_set, (set, frozenset)):
        values: dict[str, Any] = vars(command)
        data: dict[str, object] = {name: values[name] for name in fields_set if name in values}
        extra = getattr(command, "__pydantic_extra__", None)
        if isinstance(extra, dict):
            data.update(cast(dict[str, object], extra))
        if "command" not in data and isinstance(values.get("command"), str):
            data["command"] = values["command"]  # a Literal default, e.g. command="view"
        return data
    return command


# ---------------------------------------------------------------------------------------
# The checks of one field each, with the messages both languages share.


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


def missing_parameter(what: str, name: str) -> MemoryToolError:
    """``Missing required parameter `{name}` for the {what}.``"""
    return MemoryToolError(
        "invalid_argument", f"Missing required parameter `{name}` for the {what}."
    )


def wrong_type(name: str, expected: str, value: object) -> MemoryToolError:
    """``Invalid `{name}` parameter: expected {expected}, got {what value is}.``"""
    return MemoryToolError(
        "invalid_argument",
        f"Invalid `{name}` parameter: expected {expected}, got {describe_value(value)}.",
    )


def unpaired_surrogate(name: str, surrogate: int) -> MemoryToolError:
    """The refusal of a text parameter holding a lone surrogate."""
    return MemoryToolError(
        "invalid_argument",
        f"Invalid `{name}` parameter: it contains an unpaired surrogate (U+{surrogate:X}), "
        "which is not valid Unicode text. Send complete characters only.",
    )


def _path(fields: Mapping[str, object], command: str, name: str) -> str:
    """A path parameter: present, a string, and a valid memory path."""
    value = fields.get(name, MISSING)
    if value is MISSING:
        raise missing_parameter(f"{command} command", name)
    if not isinstance(value, str):
        raise wrong_type(name, "a string", value)
    # Only a name being created must meet the rules for new names (NFC, spaces): a file an
    # older version let in stays readable, editable and deletable.
    creates = command == "create" or name == "new_path"
    error = check_memory_path(value, existing=not creates)
    if error is not None:
        raise MemoryToolError("invalid_path", error.message, path_rule=error.rule) from error
    return value


def _text(fields: Mapping[str, object], command: str, name: str) -> str:
    """A required text parameter: present, a string, and valid Unicode."""
    value = fields.get(name, MISSING)
    if value is MISSING:
        raise missing_parameter(f"{command} command", name)
    return _checked_text(name, value)


def _optional_text(fields: Mapping[str, object], name: str) -> str | None:
    """A text parameter that may be absent or ``null`` (then ``None``)."""
    value = fields.get(name, MISSING)
    if value is MISSING or value is None:
        return None
    return _checked_text(name, value)


def _checked_text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise wrong_type(name, "a string", value)
    surrogate = first_unpaired_surrogate(value)
    if surrogate is not None:
        raise unpaired_surrogate(name, surrogate)
    return value


def _integer(fields: Mapping[str, object], command: str, name: str) -> int:
    """An integer parameter (see :func:`is_integer`), returned as an ``int``."""
    value = fields.get(name, MISSING)
    if value is MISSING:
        raise missing_parameter(f"{command} command", name)
    if not is_integer(value):
        raise wrong_type(name, "an integer", value)
    return int(cast(float, value))


def _view_range(fields: Mapping[str, object]) -> tuple[int, int] | None:
    """``view_range``: absent/null, or exactly two integers (checked against the file later)."""
    value = fields.get("view_range", MISSING)
    if value is MISSING or value is None:
        return None
    expected = "[start, end] or [start, -1] (two integers)"
    if not isinstance(value, (list, tuple)):
        raise wrong_type("view_range", expected, value)
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
