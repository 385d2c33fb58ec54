"""Text formatting shared by the commands, specified exactly (no floating point), so both
ports produce the same characters. Mirrors ``@hms/memory-core`` ``src/format.ts``."""

from __future__ import annotations

from typing import Final

#: Width of the right-aligned line-number column, as in the Anthropic SDKs.
LINE_NUMBER_WIDTH: Final = 6

_SIZE_UNITS: Final = ("B", "K", "M", "G")


def split_lines(text: str) -> list[str]:
    """The lines of a text. A line ends at LF only (a CR stays part of its line); a final LF
    ends the last line and does not start an empty one. Not :meth:`str.splitlines`, which
    also splits at CR, VT, FF, U+2028 and others."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def numbered_line(line_number: int, line: str) -> str:
    """``     7<TAB>line``: the number right-aligned in 6 columns, a tab, the line."""
    return f"{str(line_number).rjust(LINE_NUMBER_WIDTH)}\t{line}"


def code_point_length(text: str) -> int:
    """The length of ``text`` in Unicode code points (Python's ``len``)."""
    return len(text)


def human_size(size: int) -> str:
    """A byte count as the Anthropic TypeScript SDK shows it (``0B``, ``512B``, ``5.5K``).

    The unit is the largest of B, K, M, G (powers of 1024) not above the count; a whole number
    of units has no decimals; otherwise one decimal rounded half up with integers only:
    ``tenths = (20 * size + unit) // (2 * unit)``. So 1280 bytes is ``1.3K`` (Python's
    ``f"{1.25:.1f}"`` would give ``1.2K``).
    """
    index = 0
    unit = 1
    while index < len(_SIZE_UNITS) - 1 and size >= unit * 1024:
        unit *= 1024
        index += 1
    suffix = _SIZE_UNITS[index]
    if size % unit == 0:
        return f"{size // unit}{suffix}"
    tenths = (20 * size + unit) // (2 * unit)
    return f"{tenths // 10}.{tenths % 10}{suffix}"
