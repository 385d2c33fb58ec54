"""The rules a memory path can break, and the error that names one."""

from __future__ import annotations

from typing import Final, Literal, cast, get_args

from ._hms_error import HmsError
from ._rules import REASONS, RULES

#: The name of a rule a memory path broke; see :data:`MEMORY_PATH_RULES`.
MemoryPathRule = Literal[
    "not-a-string",
    "nul",
    "invalid-unicode",
    "control-character",
    "invisible-character",
    "nonstandard-space",
    "lookalike-character",
    "not-nfc",
    "compatibility-character",
    "backslash",
    "percent-encoded",
    "outside-memories",
    "empty-segment",
    "dot-segment",
    "hidden-segment",
    "space-at-edge",
    "name-too-long",
    "path-too-long",
    "too-deep",
]

#: Every rule, in the order they are checked (the ``rules`` of ``rules.json``, which must name
#: each :data:`MemoryPathRule` exactly once). When a path breaks several, the error names the
#: first one here (for segment rules: the first offending segment from the left).
MEMORY_PATH_RULES: Final[tuple[MemoryPathRule, ...]] = tuple(
    cast(MemoryPathRule, rule) for rule in RULES
)
if sorted(MEMORY_PATH_RULES) != sorted(get_args(MemoryPathRule)):
    raise ValueError("rules.json: rules must list every memory path rule exactly once")
for _reason in REASONS.values():
    if _reason.rule not in MEMORY_PATH_RULES:
        raise ValueError(f"rules.json: {_reason.rule!r} is not a memory path rule")


class MemoryPathError(HmsError, ValueError):
    """A memory path was refused.

    ``rule`` says which rule it broke (stable, for programs); the message names the path and
    the rule and says what to write instead (for people and Claude).
    """

    rule: MemoryPathRule
    path: object

    def __init__(self, rule: MemoryPathRule, path: object, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.path = path

    @property
    def message(self) -> str:
        """The message, exactly as the TypeScript package words it."""
        return str(self.args[0])
