"""Character classes the path rules refuse, as explicit code point tables.

A 1:1 port of ``@hms/memory-paths`` ``characters.ts``. The tables (in ``rules.json``, read by
``_rules``) are written out rather than taken from :mod:`unicodedata` on purpose: Unicode data
differs between Python (3.11 ships Unicode 14.0) and Node (15+), and both ports must refuse
exactly the same paths.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Final

from ._rules import (
    COMPATIBILITY_KEPT_TABLE,
    CONTROL_RANGES,
    INVISIBLE_TABLE,
    LOOKALIKE_TABLE,
    NONCHARACTER_RANGES,
    SPACE_TABLE,
    SURROGATE_RANGES,
    CodePointRange,
    in_ranges,
)


def is_control(cp: int) -> bool:
    """Unicode general category Cc: C0 controls, DEL and C1 controls. Stable across versions."""
    return in_ranges(CONTROL_RANGES, cp)


def is_surrogate(cp: int) -> bool:
    """A UTF-16 surrogate code point on its own (not valid Unicode text, no UTF-8 form)."""
    return in_ranges(SURROGATE_RANGES, cp)


def is_noncharacter(cp: int) -> bool:
    """Unicode noncharacters: U+FDD0..U+FDEF and the last two code points of every plane."""
    return in_ranges(NONCHARACTER_RANGES, cp)


#: Invisible and text-direction characters, as inclusive ranges (each named in
#: ``rules.json``). Deliberately not listed: U+200C/U+200D (joiners, needed by Persian, Indic
#: scripts and emoji sequences) and the variation selectors U+FE00..U+FE0F (emoji
#: presentation).
INVISIBLE_RANGES: Final[tuple[CodePointRange, ...]] = INVISIBLE_TABLE


def is_invisible(cp: int) -> bool:
    """Whether ``cp`` lies in :data:`INVISIBLE_RANGES`."""
    return in_ranges(INVISIBLE_RANGES, cp)


#: Space characters other than U+0020 (Unicode category Zs, unchanged since Unicode 4.0): each
#: looks like a plain space. Each is named in ``rules.json``.
NONSTANDARD_SPACE_RANGES: Final[tuple[CodePointRange, ...]] = SPACE_TABLE


def is_nonstandard_space(cp: int) -> bool:
    """Whether ``cp`` lies in :data:`NONSTANDARD_SPACE_RANGES`."""
    return in_ranges(NONSTANDARD_SPACE_RANGES, cp)


#: Look-alikes of ``.``, ``/``, ``\\`` and ``%``: each turns into that ASCII text under NFKC
#: (which some file systems, URL parsers and "best fit" code pages apply) or is drawn as a
#: slash. Each is named in ``rules.json``.
LOOKALIKES: Final[Mapping[int, str]] = LOOKALIKE_TABLE


#: Compatibility characters a new name may hold all the same (the ``compatibility_kept`` table
#: of ``rules.json``): their plain (NFKC) form is a space and a combining mark, two marks where
#: Thai and Lao write one, conjoining Hangul jamo that join into syllables, or holds the
#: refused U+2044 FRACTION SLASH. Each range is named in ``rules.json``.
COMPATIBILITY_KEPT_RANGES: Final[tuple[CodePointRange, ...]] = COMPATIBILITY_KEPT_TABLE


def compatibility_form(ch: str) -> str | None:
    """The plain form of ``ch`` (one code point) when it is a compatibility character a new
    name may not hold: one whose compatibility decomposition (NFKD) differs from its canonical
    one (NFD), such as U+FF21 FULLWIDTH LATIN CAPITAL LETTER A (plain ``A``), U+FB01 LATIN
    SMALL LIGATURE FI (``fi``), halfwidth katakana or U+2460 CIRCLED DIGIT ONE (``1``).
    ``None`` for any other character. Uses this interpreter's Unicode data (see the README)."""
    cp = ord(ch)
    if cp < 0xA0 or in_ranges(COMPATIBILITY_KEPT_RANGES, cp):
        return None
    if unicodedata.normalize("NFKD", ch) == unicodedata.normalize("NFD", ch):
        return None
    return unicodedata.normalize("NFKC", ch)


def code_point_label(cp: int) -> str:
    """``U+XXXX``: upper-case hex, at least four digits."""
    return f"U+{cp:04X}"


def is_unsafe_to_show(cp: int) -> bool:
    """Whether a code point is replaced by its ``<U+XXXX>`` label when a path is shown."""
    return is_control(cp) or is_surrogate(cp) or is_noncharacter(cp) or is_invisible(cp)


def character_class(ranges: Iterable[CodePointRange]) -> re.Pattern[str]:
    """A compiled regular expression matching one code point in any of ``ranges``."""
    body = "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)
    return re.compile(f"[{body}]")


#: Every code point :func:`is_unsafe_to_show` is true of (scanned in C, not code point by
#: code point in Python).
UNSAFE_TO_SHOW: Final = character_class(
    [*CONTROL_RANGES, *SURROGATE_RANGES, *NONCHARACTER_RANGES, *INVISIBLE_RANGES]
)

#: Every code point some character rule of the validator refuses: the above and look-alikes.
REFUSED_CHARACTERS: Final = character_class(
    [
        *CONTROL_RANGES,
        *SURROGATE_RANGES,
        *NONCHARACTER_RANGES,
        *INVISIBLE_RANGES,
        *NONSTANDARD_SPACE_RANGES,
        *((cp, cp) for cp in LOOKALIKES),
    ]
)
