"""Character classes the path rules refuse, as explicit code point tables.

A 1:1 port of ``@hms/memory-paths`` ``characters.ts``. The tables are written out rather than
taken from :mod:`unicodedata` on purpose: Unicode data differs between Python (3.11 ships
Unicode 14.0) and Node (15+), and both ports must refuse exactly the same paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final


def is_control(cp: int) -> bool:
    """Unicode general category Cc: C0 controls, DEL and C1 controls. Stable across versions."""
    return cp <= 0x1F or 0x7F <= cp <= 0x9F


def is_surrogate(cp: int) -> bool:
    """A UTF-16 surrogate code point on its own (not valid Unicode text, no UTF-8 form)."""
    return 0xD800 <= cp <= 0xDFFF


def is_noncharacter(cp: int) -> bool:
    """Unicode noncharacters: U+FDD0..U+FDEF and the last two code points of every plane."""
    return 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE


#: Invisible and text-direction characters, as inclusive ranges. Deliberately not listed:
#: U+200C/U+200D (joiners, needed by Persian, Indic scripts and emoji sequences) and the
#: variation selectors U+FE00..U+FE0F (emoji presentation).
INVISIBLE_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x180E, 0x180E),  # MONGOLIAN VOWEL SEPARATOR
    (0x200B, 0x200B),  # ZERO WIDTH SPACE
    (0x200E, 0x200F),  # LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    (0x2028, 0x2029),  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2064),  # WORD JOINER and the invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0x206A, 0x206F),  # deprecated format characters
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF9, 0xFFFB),  # interlinear annotation anchors
    (0x1D173, 0x1D17A),  # musical symbol format characters
    (0xE0000, 0xE007F),  # tag characters
    (0xE0100, 0xE01EF),  # variation selectors supplement
)


def is_invisible(cp: int) -> bool:
    """Whether ``cp`` lies in :data:`INVISIBLE_RANGES`."""
    return any(low <= cp <= high for low, high in INVISIBLE_RANGES)


#: Look-alikes of ``.``, ``/``, ``\\`` and ``%``: each turns into that ASCII text under NFKC
#: (which some file systems, URL parsers and "best fit" code pages apply) or is drawn as a slash.
LOOKALIKES: Final[dict[int, str]] = {
    0x2024: ".",  # ONE DOT LEADER
    0x2025: "..",  # TWO DOT LEADER
    0xFE30: "..",  # PRESENTATION FORM FOR VERTICAL TWO DOT LEADER
    0xFE52: ".",  # SMALL FULL STOP
    0xFF0E: ".",  # FULLWIDTH FULL STOP
    0x2044: "/",  # FRACTION SLASH
    0x2100: "/",  # ACCOUNT OF (a/c)
    0x2101: "/",  # ADDRESSED TO THE SUBJECT (a/s)
    0x2105: "/",  # CARE OF (c/o)
    0x2106: "/",  # CADA UNA (c/u)
    0x2215: "/",  # DIVISION SLASH
    0x29F8: "/",  # BIG SOLIDUS
    0xFF0F: "/",  # FULLWIDTH SOLIDUS
    0x29F5: "\\",  # REVERSE SOLIDUS OPERATOR
    0x29F9: "\\",  # BIG REVERSE SOLIDUS
    0xFE68: "\\",  # SMALL REVERSE SOLIDUS
    0xFF3C: "\\",  # FULLWIDTH REVERSE SOLIDUS
    0xFE6A: "%",  # SMALL PERCENT SIGN
    0xFF05: "%",  # FULLWIDTH PERCENT SIGN
}


def code_point_label(cp: int) -> str:
    """``U+XXXX``: upper-case hex, at least four digits."""
    return f"U+{cp:04X}"


def is_unsafe_to_show(cp: int) -> bool:
    """Whether a code point is replaced by its ``<U+XXXX>`` label when a path is shown."""
    return is_control(cp) or is_surrogate(cp) or is_noncharacter(cp) or is_invisible(cp)


def character_class(ranges: Iterable[tuple[int, int]]) -> re.Pattern[str]:
    """A compiled regular expression matching one code point in any of ``ranges``."""
    body = "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)
    return re.compile(f"[{body}]")


_NONCHARACTER_RANGES: Final = (
    (0xFDD0, 0xFDEF),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)),
)

#: Every code point :func:`is_unsafe_to_show` is true of (scanned in C, not code point by
#: code point in Python).
UNSAFE_TO_SHOW: Final = character_class(
    [(0x00, 0x1F), (0x7F, 0x9F), (0xD800, 0xDFFF), *_NONCHARACTER_RANGES, *INVISIBLE_RANGES]
)

#: Every code point some character rule of the validator refuses: the above and look-alikes.
REFUSED_CHARACTERS: Final = character_class(
    [
        (0x00, 0x1F),
        (0x7F, 0x9F),
        (0xD800, 0xDFFF),
        *_NONCHARACTER_RANGES,
        *INVISIBLE_RANGES,
        *((cp, cp) for cp in LOOKALIKES),
    ]
)
