"""Byte counting and display of paths, the same in every port."""

from __future__ import annotations

import re
from typing import Final

from ._characters import UNSAFE_TO_SHOW, code_point_label
from ._rules import DISPLAY_CODE_POINTS

#: The longest path shown in full in a message, in code points.
MAX_DISPLAY_CODE_POINTS: Final = DISPLAY_CODE_POINTS


def utf8_byte_length(text: str) -> int:
    """The number of bytes of ``text`` in UTF-8.

    A lone surrogate counts as 3 bytes (the size of the U+FFFD that replaces it when encoded),
    as in the TypeScript package.
    """
    return len(text.encode("utf-8", "surrogatepass"))


def compare_code_points(a: str, b: str) -> int:
    """Orders two strings by Unicode code point (= UTF-8 byte order): negative, 0 or positive.

    Python compares ``str`` by code point already; this exists so both ports name the order.
    """
    return (a > b) - (a < b)


def display_path(path: str) -> str:
    """How a path (or a name) is shown inside an error message.

    As written, except that control, invisible, noncharacter and lone-surrogate code points
    are replaced by ``<U+XXXX>``, the empty string shows as ``""``, and anything longer than
    512 code points is cut there and ends with ``…``.
    """
    if path == "":
        return '""'
    shown = UNSAFE_TO_SHOW.sub(_label, path[:MAX_DISPLAY_CODE_POINTS])
    return shown + "…" if len(path) > MAX_DISPLAY_CODE_POINTS else shown


def _label(match: re.Match[str]) -> str:
    return f"<{code_point_label(ord(match.group(0)))}>"
