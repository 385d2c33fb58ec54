"""The ``memory_recall`` command: its tool definition, input checks and result text; the
Python side of ``@hms/memory-core`` ``src/recall.ts``.

This module is the reference for the text format (``generate-recall.py`` writes the shared
vectors, ``packages/memory-core/vectors/recall.json``, from it); the TypeScript engine produces
the same characters for the same hits. :meth:`MemoryEngine.recall
<hms_memory_tool.core.MemoryEngine.recall>` parses the input with :func:`parse_recall_input`,
asks the backend and formats the hits with :func:`format_recall`.

Tool definition (sent to the Messages API as a custom tool)::

    {"name": "memory_recall",
     "description": RECALL_TOOL_DESCRIPTION,
     "input_schema": {"type": "object",
                      "properties": {"query": {"type": "string", ...},
                                     "k": {"type": "integer", "minimum": 1, "maximum": 50, ...},
                                     "modified_after": {"type": "string", ...},
                                     "modified_before": {"type": "string", ...}},
                      "required": ["query"], "additionalProperties": false}}

Result text, when there are hits (``n`` of them, best first)::

    Found {n} memory file{s}{range} matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.
    <blank line>
    1. {path} (lines {line_start}-{line_end}, score {score}, modified {updated_at})
        {excerpt line}
        {excerpt line}
    <blank line>
    2. ...

- ``{s}`` is empty for one file and ``s`` otherwise.
- ``lines {a}-{b}`` is written ``line {a}`` when ``a == b``.
- ``, modified {updated_at}`` is the hit's ``updated_at`` as the backend gave it (hms-mcp: UTC
  with milliseconds, ``2026-07-01T09:30:00.000Z``); it is left out when the hit has none.
- ``{range}`` is empty without a time range, else `` modified at or after {after}``,
  `` modified before {before}`` or `` modified at or after {after} and before {before}``, each
  time as :func:`parse_recall_input` normalized it (UTC with milliseconds).
- ``{score}`` has exactly 4 decimals: the exact binary value of the score rounded to the
  nearest multiple of 0.0001, a tie rounded away from zero (this is JavaScript's
  ``score.toFixed(4)``; a score of 0 or -0 is ``0.0000``). hms-mcp scores are far below
  1e21, where ``toFixed`` would switch to exponent notation.
- The excerpt is split into lines at LF only; one final LF adds no empty line; each line is
  written after 4 spaces, unchanged otherwise (a CR stays). An empty excerpt has no lines.
- Hits are separated by one empty line; the text has no final newline.

Result text, when there are none::

    No memory files matched the query. View /memories to see every file.

or, with a time range::

    No memory files{range} matched the query. Leave out modified_after and modified_before to search every file.

Input errors are raised as :class:`~hms_memory_tool.core.MemoryToolError` (code
``invalid_argument``, or ``invalid_command`` when the input is not an object) with the
messages of :func:`parse_recall_input`. The limits (``k`` from 1 to 50, 5 by default, a query
of at most 16384 bytes) are hms-mcp's; the engine states them itself, so that it imports nothing
of the protocol with a server (a test holds them equal to :mod:`hms_memory_tool.protocol`'s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, Final, cast

from hms_memory_tool.paths import MISSING, IsoTime, check_iso_time, utf8_byte_length

from ._backend import RecallHit
from ._commands import (
    describe_value,
    first_unpaired_surrogate,
    is_integer,
    missing_parameter,
    unpaired_surrogate,
    wrong_type,
)
from ._errors import MemoryToolError

#: The companion tool's name.
RECALL_TOOL_NAME: Final = "memory_recall"
#: Files a recall returns when ``k`` is not given (hms-mcp's default).
DEFAULT_RECALL_K: Final = 5
#: The most files one recall may ask for (hms-mcp's bound).
MAX_RECALL_K: Final = 50
#: The longest query, in UTF-8 bytes (hms-mcp's bound).
MAX_QUERY_BYTES: Final = 16_384

__all__ = [
    "DEFAULT_RECALL_K",
    "MAX_QUERY_BYTES",
    "MAX_RECALL_K",
    "NO_RECALL_HITS",
    "RECALL_BY_TIME_UNSUPPORTED",
    "RECALL_INPUT_SCHEMA",
    "RECALL_TOOL_DESCRIPTION",
    "RECALL_TOOL_NAME",
    "RecallInput",
    "format_recall",
    "format_score",
    "parse_recall_input",
    "recall_tool_definition",
]

RECALL_TOOL_DESCRIPTION: Final = (
    "Search the memory directory (/memories) by meaning and keywords. Returns the memory files "
    "most relevant to the query, best first, each with its path, a relevance score, the line "
    "range of the best-matching passage and that passage. Use it to find what you stored "
    "earlier when you do not know which file holds it; then read the file with the memory "
    "tool's view command. Scores run from 0 to 1 (higher is more relevant) and do not depend "
    "on the other hits: below 0.1 a file likely has little to do with the query, from 0.3 up "
    "it holds much of what was asked. Each hit also says when its file last changed (UTC). To "
    "ask what changed in a period (this week, since a date), give modified_after and/or "
    "modified_before: only files last changed in that range are searched."
)

RECALL_INPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What to look for: words, a question or a description.",
        },
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RECALL_K,
            "description": f"How many files to return, 1 to {MAX_RECALL_K} "
            f"(default {DEFAULT_RECALL_K}).",
        },
        "modified_after": {
            "type": "string",
            "description": "Only files last changed at or after this time: ISO 8601 with a "
            "timezone, such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00.",
        },
        "modified_before": {
            "type": "string",
            "description": "Only files last changed before this time: ISO 8601 with a timezone, "
            "such as 2026-07-08T00:00:00Z.",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}

#: The text of a recall that found nothing.
NO_RECALL_HITS: Final = "No memory files matched the query. View /memories to see every file."

#: The error of a recall by time over a backend that cannot filter by time (its hits lack
#: ``updated_at``, or lie outside the range: it ignored it).
RECALL_BY_TIME_UNSUPPORTED: Final = (
    "memory_recall cannot filter by time with this memory backend: it does not report when "
    "files changed. Recall without modified_after and modified_before."
)

_TIME_EXAMPLE: Final = "such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00"


@dataclass(frozen=True)
class RecallInput:
    """A ``memory_recall`` call, checked: what to look for, how many files to return, and the
    time range, if any (UTC with milliseconds, as ``2026-07-01T00:00:00.000Z``)."""

    query: str
    k: int = DEFAULT_RECALL_K
    modified_after: str | None = None
    modified_before: str | None = None


def recall_tool_definition() -> dict[str, Any]:
    """The tool definition sent to the Messages API (the same object, key for key, as the
    TypeScript package's)."""
    return {
        "name": RECALL_TOOL_NAME,
        "description": RECALL_TOOL_DESCRIPTION,
        "input_schema": RECALL_INPUT_SCHEMA,
    }


def parse_recall_input(tool_input: object) -> RecallInput:
    """The ``query`` and ``k`` of a ``memory_recall`` call, checked. A :class:`RecallInput` is
    returned as it is.

    Messages (``{what}`` names a JSON value as the memory tool does: ``nothing``, ``null``,
    ``a boolean``, ``an integer``, ``a fractional number``, ``an integer too large to be
    exact``, ``a number``, ``a string``, ``an array``, ``an object``):

    - not an object: ``Invalid memory_recall input: expected an object with a "query" field, got {what}.``
    - ``Missing required parameter `query` for the memory_recall tool.``
    - ``Invalid `query` parameter: expected a string, got {what}.``
    - ``Invalid `query` parameter: it is empty. Give words or a question to search the memory files for.``
    - ``Invalid `query` parameter: it is {n} bytes long, over the limit of 16384 bytes. Use a shorter query.``
    - ``Invalid `query` parameter: it contains an unpaired surrogate (U+D800), which is not valid Unicode text. Send complete characters only.``
    - ``Invalid `k` parameter: expected an integer, got {what}.``
    - ``Invalid `k` parameter: {k}. It should be from 1 to 50.``
    - ``Invalid `modified_after` parameter: expected a string, got {what}.`` (and
      ``modified_before``; null counts as not given)
    - ``Invalid `modified_after` parameter: expected an ISO 8601 time with a timezone, such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00.``
    - ``Invalid `modified_after` parameter: {value} has no timezone. Add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00.``
    - ``Invalid `modified_after` parameter: {value} is not a real time: a month, day, hour, minute, second or offset is out of range.``
    - ``Invalid `modified_after` parameter: {value} falls outside the years 0000 to 9999 in UTC.``
    - ``Invalid `modified_after` and `modified_before` parameters: {after} is later than {before}, so no file could match. Give an earlier modified_after or a later modified_before.``
    """
    if isinstance(tool_input, RecallInput):
        return tool_input
    if not isinstance(tool_input, Mapping):
        raise MemoryToolError(
            "invalid_command",
            'Invalid memory_recall input: expected an object with a "query" field, '
            f"got {describe_value(tool_input)}.",
        )
    data = cast(Mapping[str, object], tool_input)
    query = data.get("query", MISSING)
    if query is MISSING:
        raise missing_parameter(f"{RECALL_TOOL_NAME} tool", "query")
    if not isinstance(query, str):
        raise wrong_type("query", "a string", query)
    if query == "":
        raise MemoryToolError(
            "invalid_argument",
            "Invalid `query` parameter: it is empty. Give words or a question to search the "
            "memory files for.",
        )
    surrogate = first_unpaired_surrogate(query)
    if surrogate is not None:
        raise unpaired_surrogate("query", surrogate)
    size = utf8_byte_length(query)
    if size > MAX_QUERY_BYTES:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `query` parameter: it is {size} bytes long, over the limit of "
            f"{MAX_QUERY_BYTES} bytes. Use a shorter query.",
        )
    k = data.get("k", MISSING)
    count = DEFAULT_RECALL_K
    if k is not MISSING and k is not None:
        if not is_integer(k):
            raise wrong_type("k", "an integer", k)
        count = int(cast(float, k))
        if not 1 <= count <= MAX_RECALL_K:
            raise MemoryToolError(
                "invalid_argument",
                f"Invalid `k` parameter: {count}. It should be from 1 to {MAX_RECALL_K}.",
            )
    given_after = data.get("modified_after", MISSING)
    given_before = data.get("modified_before", MISSING)
    after = _parse_time(given_after, "modified_after")
    before = _parse_time(given_before, "modified_before")
    if after is not None and before is not None and after.ms > before.ms:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `modified_after` and `modified_before` parameters: {given_after} is later "
            f"than {given_before}, so no file could match. Give an earlier modified_after or a "
            "later modified_before.",
        )
    return RecallInput(
        query,
        count,
        None if after is None else after.utc,
        None if before is None else before.utc,
    )


def _parse_time(value: object, name: str) -> IsoTime | None:
    """A time parameter (``modified_after``, ``modified_before``), checked: absent or null
    gives None; otherwise an ISO 8601 time with a timezone (:func:`check_iso_time`)."""
    if value is MISSING or value is None:
        return None
    if not isinstance(value, str):
        raise wrong_type(name, "a string", value)
    check = check_iso_time(value)
    if isinstance(check, IsoTime):
        return check
    # A string of a time's form is ASCII and short, so it is safe to repeat.
    message = {
        "not-a-time": f"expected an ISO 8601 time with a timezone, {_TIME_EXAMPLE}.",
        "no-timezone": f"{value} has no timezone. Add Z for UTC (2026-07-01T00:00:00Z) or an "
        "offset such as +02:00.",
        "no-such-time": f"{value} is not a real time: a month, day, hour, minute, second or "
        "offset is out of range.",
        "out-of-range": f"{value} falls outside the years 0000 to 9999 in UTC.",
    }[check.problem]
    raise MemoryToolError("invalid_argument", f"Invalid `{name}` parameter: {message}")


def hit_in_range(hit: RecallHit, modified_after: str | None, modified_before: str | None) -> bool:
    """Whether ``hit`` lies in the range by its ``updated_at`` (False when it has none to
    compare)."""
    if modified_after is None and modified_before is None:
        return True
    at = None if hit.updated_at is None else check_iso_time(hit.updated_at)
    if not isinstance(at, IsoTime):
        return False
    for bound, inside in ((modified_after, True), (modified_before, False)):
        if bound is None:
            continue
        limit = check_iso_time(bound)
        if not isinstance(limit, IsoTime) or (at.ms >= limit.ms) != inside:
            return False
    return True


def _range_phrase(modified_after: str | None, modified_before: str | None) -> str:
    """`` modified at or after {after} and before {before}`` (or one bound), or ``""``."""
    if modified_after is not None and modified_before is not None:
        return f" modified at or after {modified_after} and before {modified_before}"
    if modified_after is not None:
        return f" modified at or after {modified_after}"
    if modified_before is not None:
        return f" modified before {modified_before}"
    return ""


def format_score(score: float) -> str:
    """``score`` with exactly 4 decimals, as JavaScript's ``score.toFixed(4)``."""
    if score == 0:
        score = 0.0  # -0 prints as 0.0000, as in JavaScript
    exact = Decimal(score)  # the exact binary value, no rounding yet
    return str(exact.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP, context=_WIDE))


_WIDE: Final = Context(prec=400)  # enough digits for any double


def format_recall(
    hits: Sequence[RecallHit],
    modified_after: str | None = None,
    modified_before: str | None = None,
) -> str:
    """The ``memory_recall`` result text for ``hits``, found within the time range when one
    was given (see the module documentation)."""
    among = _range_phrase(modified_after, modified_before)
    if not hits:
        if among == "":
            return NO_RECALL_HITS
        return (
            f"No memory files{among} matched the query. Leave out modified_after and "
            "modified_before to search every file."
        )
    files = "file" if len(hits) == 1 else "files"
    parts = [
        f"Found {len(hits)} memory {files}{among} matching the query, most relevant first. "
        "View a file with the memory tool to read all of it; view_range [start, end] shows "
        "just the lines given for a hit."
    ]
    for number, hit in enumerate(hits, start=1):
        if hit.line_start == hit.line_end:
            lines = f"line {hit.line_start}"
        else:
            lines = f"lines {hit.line_start}-{hit.line_end}"
        modified = "" if hit.updated_at is None else f", modified {hit.updated_at}"
        block = [f"{number}. {hit.path} ({lines}, score {format_score(hit.score)}{modified})"]
        excerpt = hit.excerpt.split("\n")
        if excerpt[-1] == "":
            excerpt.pop()
        block.extend(f"    {line}" for line in excerpt)
        parts.append("\n".join(block))
    return "\n\n".join(parts)
