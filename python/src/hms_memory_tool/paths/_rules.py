"""The rule data of a memory path, read from ``rules.json``: the Python side of
``@hms/memory-paths`` ``rules.ts``.

``rules.json`` is a copy, shipped in the wheel, of ``packages/memory-paths/rules.json`` (a test
fails when the two differ): the limits, the character tables, the rules in the order they are
checked and every message template. Both ports read the same data, so they refuse exactly the
same paths with exactly the same words. This module only turns the file into typed values and
refuses a malformed one at import; the rules are applied in ``_validate``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Final

#: An inclusive range of code points.
CodePointRange = tuple[int, int]

_CODE_POINT: Final = re.compile(r"U\+[0-9A-F]{4,6}\Z")
_PLACEHOLDER: Final = re.compile(r"\{([a-z_]+)\}")


def parse_code_point(label: str) -> int:
    """The code point written ``U+XXXX`` (upper-case hex, at least four digits)."""
    if not isinstance(label, str) or _CODE_POINT.match(label) is None:
        raise ValueError(f"rules.json: {label!r} is not a code point written U+XXXX")
    return int(label[2:], 16)


def fill(template: str, values: Mapping[str, str | int]) -> str:
    """``template`` with every ``{name}`` replaced by ``values[name]``. The values are inserted
    as they are (a brace in a value is never read as a placeholder); a placeholder without a
    value is a bug in the caller and raises :class:`KeyError`."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"rules.json: no value for {{{name}}} in {template}")
        return str(values[name])

    return _PLACEHOLDER.sub(value, template)


@dataclass(frozen=True)
class Reason:
    """Why a path is refused: the rule it breaks (checked against the rules by ``_errors``)
    and the template of the message."""

    rule: str
    text: str


def _load() -> dict[str, Any]:
    text = files(__package__ or "hms_memory_tool.paths").joinpath("rules.json").read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError("rules.json: expected an object with format 1")
    return data


def _limit(data: Mapping[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"rules.json: {name} must be a positive integer, got {value!r}")
    return value


def _ranges(entries: Any) -> tuple[CodePointRange, ...]:
    return tuple((parse_code_point(e["from"]), parse_code_point(e["to"])) for e in entries)


_DATA: Final = _load()

#: The raw contents of ``rules.json``, for tests and for tools that want the data itself.
RULES_DATA: Final[Mapping[str, Any]] = _DATA

ROOT: Final[str] = _DATA["root"]
NAME_BYTES: Final = _limit(_DATA, "max_name_bytes")
PATH_BYTES: Final = _limit(_DATA, "max_path_bytes")
DEPTH: Final = _limit(_DATA, "max_depth")
DISPLAY_CODE_POINTS: Final = _limit(_DATA, "max_display_code_points")

#: Every rule, in the order they are checked.
RULES: Final[tuple[str, ...]] = tuple(str(name) for name in _DATA["rules"])
#: The rules that apply only to a name being created: a path that breaks only these still
#: names a file an older version let in, which stays readable, editable and deletable.
NEW_NAMES_ONLY: Final[frozenset[str]] = frozenset(str(name) for name in _DATA["new_names_only"])

#: The two whole-message templates: ``not_a_string`` and ``invalid_path``.
MESSAGES: Final[Mapping[str, str]] = {
    name: str(_DATA["messages"][name]) for name in ("not_a_string", "invalid_path")
}
#: Why a path is refused, by reason name (several reasons can name one rule).
REASONS: Final[Mapping[str, Reason]] = {
    name: Reason(str(entry["rule"]), str(entry["text"])) for name, entry in _DATA["reasons"].items()
}

_CHARACTERS: Final = _DATA["characters"]
CONTROL_RANGES: Final = _ranges(_CHARACTERS["control"])
SURROGATE_RANGES: Final = _ranges(_CHARACTERS["surrogate"])
NONCHARACTER_RANGES: Final = _ranges(_CHARACTERS["noncharacter"])
INVISIBLE_TABLE: Final = _ranges(_CHARACTERS["invisible"])
SPACE_TABLE: Final = _ranges(_CHARACTERS["space"])
COMPATIBILITY_KEPT_TABLE: Final = _ranges(_CHARACTERS["compatibility_kept"])
LOOKALIKE_TABLE: Final[Mapping[int, str]] = {
    parse_code_point(entry["code_point"]): str(entry["looks_like"])
    for entry in _CHARACTERS["lookalike"]
}


def in_ranges(table: tuple[CodePointRange, ...], cp: int) -> bool:
    """Whether ``cp`` lies in one of ``table``'s ranges."""
    return any(low <= cp <= high for low, high in table)
