"""The memory path rules: a 1:1 port of ``@hms/memory-paths`` ``validate.ts``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Final, cast

from ._characters import (
    LOOKALIKES,
    REFUSED_CHARACTERS,
    code_point_label,
    compatibility_form,
    is_control,
    is_invisible,
    is_noncharacter,
    is_nonstandard_space,
    is_surrogate,
)
from ._errors import MEMORY_PATH_RULES, MemoryPathError, MemoryPathRule
from ._rules import (
    DEPTH,
    MESSAGES,
    NAME_BYTES,
    NEW_NAMES_ONLY,
    PATH_BYTES,
    REASONS,
    ROOT,
    fill,
)
from ._text import display_path, utf8_byte_length

#: The memory directory. Every memory path is this or lies under it.
MEMORY_ROOT: Final = ROOT
#: Longest name (one segment between slashes), in UTF-8 bytes.
MAX_NAME_BYTES: Final = NAME_BYTES
#: Longest whole path, ``/memories`` included, in UTF-8 bytes.
MAX_PATH_BYTES: Final = PATH_BYTES
#: Most levels below ``/memories`` (``/memories/a`` is one level, ``/memories`` zero).
MAX_DEPTH: Final = DEPTH

_ROOT_PREFIX: Final = MEMORY_ROOT + "/"
_PERCENT_ESCAPE: Final = re.compile(r"%[0-9A-Fa-f]{2}")

#: A refusal before it is worded as a whole message: the rule and the reason's text.
_Problem = tuple[MemoryPathRule, str]


def _reason(name: str, /, **values: str | int) -> _Problem:
    """The rule a reason of ``rules.json`` names, and its template filled with ``values``."""
    reason = REASONS[name]
    return cast(MemoryPathRule, reason.rule), fill(reason.text, values)


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


def check_memory_path(path: object, *, existing: bool = False) -> MemoryPathError | None:
    """Returns the error for the first rule ``path`` breaks, or ``None`` if it is valid.

    Never raises. See the package README for the rules. ``existing``: the path names a file
    that may already exist (view, edit, delete, the old path of a rename), not a name being
    created, so the rules of ``new_names_only`` in ``rules.json`` (NFC, compatibility
    characters, spaces) are not
    applied and a file an older version let in stays readable and deletable.
    """
    if not isinstance(path, str):
        message = fill(MESSAGES["not_a_string"], {"value": _describe_value(path)})
        return MemoryPathError("not-a-string", path, message)

    def fail(problem: _Problem) -> MemoryPathError:
        rule, reason = problem
        message = fill(MESSAGES["invalid_path"], {"path": display_path(path), "reason": reason})
        return MemoryPathError(rule, path, message)

    def applies(rule: MemoryPathRule) -> bool:
        return not existing or rule not in NEW_NAMES_ONLY

    problem = _path_problem(path, applies)
    return None if problem is None else fail(problem)


def _every_rule(_rule: MemoryPathRule) -> bool:
    return True


def _path_problem(path: str, applies: Callable[[MemoryPathRule], bool]) -> _Problem | None:
    """The first rule ``path`` breaks, as its rule and reason, or ``None``."""
    problem = _check_characters(path, applies)
    if problem is not None:
        return problem
    # Composed and decomposed accents look alike: a new name must be in NFC (see the README).
    if applies("not-nfc") and not unicodedata.is_normalized("NFC", path):
        return _reason("not_nfc", nfc=display_path(unicodedata.normalize("NFC", path)))
    # So do compatibility characters and their plain forms (fullwidth A and A, the fi ligature).
    if applies("compatibility-character"):
        compatibility = _compatibility_problem(path)
        if compatibility is not None:
            return compatibility

    if "\\" in path:
        return _reason("backslash")
    escape = _PERCENT_ESCAPE.search(path)
    if escape is not None:
        return _reason("percent_encoded", escape=escape.group(0))
    if path != MEMORY_ROOT and not path.startswith(_ROOT_PREFIX):
        return _reason("outside_memories")

    names = [] if path == MEMORY_ROOT else path[len(_ROOT_PREFIX) :].split("/")
    for name in names:
        if name == "":
            return _reason("empty_segment")
        if name in (".", ".."):
            return _reason("dot_segment", name=name)
        if name.startswith("."):
            return _reason("hidden_segment", name=display_path(name))
        if applies("space-at-edge") and (name.startswith(" ") or name.endswith(" ")):
            return _reason("space_at_edge", name=display_path(name))
        name_bytes = utf8_byte_length(name)
        if name_bytes > MAX_NAME_BYTES:
            return _reason(
                "name_too_long", name=display_path(name), bytes=name_bytes, limit=MAX_NAME_BYTES
            )
    path_bytes = utf8_byte_length(path)
    if path_bytes > MAX_PATH_BYTES:
        return _reason("path_too_long", bytes=path_bytes, limit=MAX_PATH_BYTES)
    if len(names) > MAX_DEPTH:
        return _reason("too_deep", depth=len(names), limit=MAX_DEPTH)
    return None


def _compatibility_problem(path: str) -> _Problem | None:
    """The compatibility-character problem of ``path`` (a string in NFC), or ``None``: the
    leftmost compatibility character that is not kept, and the path with every such character
    in its plain form, which is what to send instead (or why that is not valid either)."""
    if unicodedata.is_normalized("NFKC", path):
        return None  # the common case: nothing to look at
    first: tuple[str, str] | None = None
    plain_parts: list[str] = []
    for ch in path:
        plain = compatibility_form(ch)
        if plain is not None and first is None:
            first = (ch, plain)
        plain_parts.append(ch if plain is None else plain)
    if first is None:
        return None
    # Halfwidth KA and its voiced mark are KA and a combining mark: composed, GA.
    plain_path = unicodedata.normalize("NFC", "".join(plain_parts))
    values: dict[str, str | int] = {
        "code_point": code_point_label(ord(first[0])),
        "character": first[0],
        "plain": first[1],
        "plain_path": display_path(plain_path),
    }
    problem = _path_problem(plain_path, _every_rule)
    if problem is None:
        return _reason("compatibility_character", **values)
    return _reason("compatibility_character_plain_path_invalid", **values, problem=problem[1])


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


_RANK: Final[Mapping[str, int]] = {rule: index for index, rule in enumerate(MEMORY_PATH_RULES)}
_NUL_RANK: Final = _RANK["nul"]


def _check_characters(path: str, applies: Callable[[MemoryPathRule], bool]) -> _Problem | None:
    """One pass over the code points: the problem whose rule comes first in
    MEMORY_PATH_RULES, and within a rule the leftmost offending character."""
    best: _Problem | None = None
    best_rank = len(MEMORY_PATH_RULES)

    for match in REFUSED_CHARACTERS.finditer(path):
        ch = match.group(0)
        cp = ord(ch)
        reason: str | None = None
        if cp == 0:
            reason = "nul"
        elif is_surrogate(cp):
            reason = "unpaired_surrogate"
        elif is_noncharacter(cp):
            reason = "noncharacter"
        elif is_control(cp):
            reason = "control_character"
        elif is_invisible(cp):
            reason = "invisible_character"
        elif is_nonstandard_space(cp):
            reason = "nonstandard_space" if applies("nonstandard-space") else None
        elif cp in LOOKALIKES:
            reason = "lookalike_character"
        if reason is None:
            continue
        rank = _RANK[REASONS[reason].rule]
        if rank < best_rank:
            best_rank = rank
            best = _character_problem(reason, cp, ch)
        if best_rank == _NUL_RANK:
            break  # NUL outranks everything else
    return best


def _character_problem(reason: str, cp: int, ch: str) -> _Problem:
    values: Mapping[str, str] = {"code_point": code_point_label(cp)}
    if reason == "lookalike_character":
        values = {**values, "character": ch, "looks_like": LOOKALIKES[cp]}
    return _reason(reason, **values)


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
