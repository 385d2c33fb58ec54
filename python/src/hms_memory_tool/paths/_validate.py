"""The memory path rules: a 1:1 port of ``@hms/memory-paths`` ``validate.ts``."""

from __future__ import annotations

import re
from typing import Final

from ._characters import (
    LOOKALIKES,
    REFUSED_CHARACTERS,
    code_point_label,
    is_control,
    is_invisible,
    is_noncharacter,
    is_surrogate,
)
from ._errors import MEMORY_PATH_RULES, MemoryPathError, MemoryPathRule
from ._text import display_path, utf8_byte_length

#: The memory directory. Every memory path is this or lies under it.
MEMORY_ROOT: Final = "/memories"
#: Longest name (one segment between slashes), in UTF-8 bytes.
MAX_NAME_BYTES: Final = 128
#: Longest whole path, ``/memories`` included, in UTF-8 bytes.
MAX_PATH_BYTES: Final = 240
#: Most levels below ``/memories`` (``/memories/a`` is one level, ``/memories`` zero).
MAX_DEPTH: Final = 16

_ROOT_PREFIX: Final = MEMORY_ROOT + "/"
_PERCENT_ESCAPE: Final = re.compile(r"%[0-9A-Fa-f]{2}")


class _Missing:
    """The type of :data:`MISSING`."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


#: A value that was not given at all (JSON: an absent field), as opposed to ``None`` (JSON
#: ``null``). Messages name the two differently ("nothing" and "null").
MISSING: Final = _Missing()


def check_memory_path(path: object) -> MemoryPathError | None:
    """Returns the error for the first rule ``path`` breaks, or ``None`` if it is valid.

    Never raises. See the package README for the rules.
    """
    if not isinstance(path, str):
        return MemoryPathError(
            "not-a-string",
            path,
            "Invalid memory path: expected a string such as /memories/notes.md, "
            f"got {_describe_value(path)}.",
        )

    def fail(rule: MemoryPathRule, reason: str) -> MemoryPathError:
        return MemoryPathError(rule, path, f"Invalid memory path {display_path(path)}: {reason}")

    problem = _check_characters(path)
    if problem is not None:
        return fail(*problem)

    if "\\" in path:
        return fail(
            "backslash",
            'it contains a backslash (\\). Memory paths separate names with "/" only; '
            'replace the backslash with "/" or remove it.',
        )
    escape = _PERCENT_ESCAPE.search(path)
    if escape is not None:
        return fail(
            "percent-encoded",
            f"it contains the percent-escape {escape.group(0)}. Memory paths are used exactly "
            "as written and never URL-decoded, so write the character itself instead of a "
            "%XX escape.",
        )
    if path != MEMORY_ROOT and not path.startswith(_ROOT_PREFIX):
        return fail(
            "outside-memories",
            "memory paths must be /memories or start with /memories/, for example "
            "/memories/notes.md.",
        )

    names = [] if path == MEMORY_ROOT else path[len(_ROOT_PREFIX) :].split("/")
    for name in names:
        if name == "":
            return fail(
                "empty-segment",
                'it contains an empty name (a doubled "/" or a "/" at the end). '
                'Remove the extra "/".',
            )
        if name in (".", ".."):
            return fail(
                "dot-segment",
                f'it contains a "{name}" segment, and relative segments are not allowed. '
                'Write the full path from /memories without "." or ".." segments.',
            )
        if name.startswith("."):
            return fail(
                "hidden-segment",
                f'the name {display_path(name)} starts with ".", and hidden names are not '
                "allowed. Choose a name that does not start with a dot.",
            )
        name_bytes = utf8_byte_length(name)
        if name_bytes > MAX_NAME_BYTES:
            return fail(
                "name-too-long",
                f"the name {display_path(name)} is {name_bytes} bytes long, over the limit of "
                f"{MAX_NAME_BYTES} bytes for one name (counted in UTF-8). Choose a shorter name.",
            )
    path_bytes = utf8_byte_length(path)
    if path_bytes > MAX_PATH_BYTES:
        return fail(
            "path-too-long",
            f"it is {path_bytes} bytes long, over the limit of {MAX_PATH_BYTES} bytes for a "
            "whole path (counted in UTF-8). Use shorter names or fewer levels.",
        )
    if len(names) > MAX_DEPTH:
        return fail(
            "too-deep",
            f"it is {len(names)} levels below /memories, over the limit of {MAX_DEPTH} "
            "levels. Use a flatter layout with fewer nested directories.",
        )
    return None


def validate_memory_path(path: object) -> str:
    """Returns ``path`` unchanged if it is a valid memory path.

    Raises :class:`MemoryPathError` for the first rule it breaks otherwise.
    """
    error = check_memory_path(path)
    if error is not None:
        raise error
    assert isinstance(path, str)
    return path


def is_valid_memory_path(path: object) -> bool:
    """Whether ``path`` is a valid memory path."""
    return check_memory_path(path) is None


_RANK: Final = {rule: index for index, rule in enumerate(MEMORY_PATH_RULES)}
_NUL_RANK: Final = _RANK["nul"]


def _check_characters(path: str) -> tuple[MemoryPathRule, str] | None:
    """One pass over the code points: the problem whose rule comes first in
    MEMORY_PATH_RULES, and within a rule the leftmost offending character."""
    best: tuple[MemoryPathRule, str] | None = None
    best_rank = len(MEMORY_PATH_RULES)

    for match in REFUSED_CHARACTERS.finditer(path):
        ch = match.group(0)
        cp = ord(ch)
        rule: MemoryPathRule | None = None
        if cp == 0:
            rule = "nul"
        elif is_surrogate(cp) or is_noncharacter(cp):
            rule = "invalid-unicode"
        elif is_control(cp):
            rule = "control-character"
        elif is_invisible(cp):
            rule = "invisible-character"
        elif cp in LOOKALIKES:
            rule = "lookalike-character"
        if rule is not None and _RANK[rule] < best_rank:
            best_rank = _RANK[rule]
            best = (rule, _character_reason(rule, cp, ch))
        if best_rank == _NUL_RANK:
            break  # NUL outranks everything else
    return best


def _character_reason(rule: MemoryPathRule, cp: int, ch: str) -> str:
    label = code_point_label(cp)
    if rule == "nul":
        return "it contains a NUL character (U+0000), which is never allowed. Remove it."
    if rule == "invalid-unicode":
        if is_surrogate(cp):
            return (
                f"it contains {label}, an unpaired surrogate, which is not valid Unicode text. "
                "Use only complete characters."
            )
        return (
            f"it contains {label}, a Unicode noncharacter, which is not meant for text "
            "exchange. Remove it."
        )
    if rule == "control-character":
        return (
            f"it contains the control character {label}. Names may not contain control "
            "characters such as tabs, newlines or escape codes; remove it."
        )
    if rule == "invisible-character":
        return (
            f"it contains {label}, an invisible or text-direction character that can make a "
            "path look like a different one. Remove it."
        )
    lookalike = LOOKALIKES[cp]
    return (
        f'it contains {label} ({ch}), a look-alike of "{lookalike}" that some systems convert '
        f'into "{lookalike}". Use plain ASCII "/" between names and plain "." in names.'
    )


def _describe_value(value: object) -> str:
    """How a non-string value is named in a message; the same words as the TypeScript
    package for the same JSON value (JSON null is "null", a missing value "nothing")."""
    if value is MISSING:
        return "nothing"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"
