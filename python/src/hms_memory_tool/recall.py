"""The ``memory_recall`` companion tool: its definition, input checks and result text.

This module is the reference for the text format; the TypeScript package
(``holographic-memory-claude-tool``) produces the same characters for the same hits.

Tool definition (sent to the Messages API as a custom tool)::

    {"name": "memory_recall",
     "description": RECALL_TOOL_DESCRIPTION,
     "input_schema": {"type": "object",
                      "properties": {"query": {"type": "string", ...},
                                     "k": {"type": "integer", "minimum": 1, "maximum": 50, ...}},
                      "required": ["query"], "additionalProperties": false}}

Result text, when there are hits (``n`` of them, best first)::

    Found {n} memory file{s} matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.
    <blank line>
    1. {path} (lines {line_start}-{line_end}, score {score})
        {excerpt line}
        {excerpt line}
    <blank line>
    2. ...

- ``{s}`` is empty for one file and ``s`` otherwise.
- ``lines {a}-{b}`` is written ``line {a}`` when ``a == b``.
- ``{score}`` has exactly 4 decimals: the exact binary value of the score rounded to the
  nearest multiple of 0.0001, a tie rounded away from zero (this is JavaScript's
  ``score.toFixed(4)``; a score of 0 or -0 is ``0.0000``). hms-mcp scores are far below
  1e21, where ``toFixed`` would switch to exponent notation.
- The excerpt is split into lines at LF only; one final LF adds no empty line; each line is
  written after 4 spaces, unchanged otherwise (a CR stays). An empty excerpt has no lines.
- Hits are separated by one empty line; the text has no final newline.

Result text, when there are none::

    No memory files matched the query. View /memories to see every file.

Input errors are raised as :class:`~hms_memory_tool.core.MemoryToolError` (code
``invalid_argument``, or ``invalid_command`` when the input is not an object) with the
messages of :func:`parse_recall_input`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, Final, cast

from hms_memory_tool.core import MemoryToolError, describe_value, is_integer
from hms_memory_tool.paths import MISSING, utf8_byte_length

#: The companion tool's name.
RECALL_TOOL_NAME: Final = "memory_recall"
#: Hits returned when ``k`` is not given.
DEFAULT_RECALL_K: Final = 5
#: Most hits one call may ask for (hms-mcp's limit).
MAX_RECALL_K: Final = 50
#: Longest query, in UTF-8 bytes (hms-mcp's limit).
MAX_QUERY_BYTES: Final = 16_384

RECALL_TOOL_DESCRIPTION: Final = (
    "Search the memory directory (/memories) by meaning and keywords. Returns the memory files "
    "most relevant to the query, best first, each with its path, a relevance score, the line "
    "range of the best-matching passage and that passage. Use it to find what you stored "
    "earlier when you do not know which file holds it; then read the file with the memory "
    "tool's view command. Scores run from 0 to 1 and only compare the hits of one query "
    "(higher is more relevant)."
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
    },
    "required": ["query"],
    "additionalProperties": False,
}

NO_HITS: Final = "No memory files matched the query. View /memories to see every file."


@dataclass(frozen=True)
class RecallHit:
    """One memory file found by recall."""

    path: str
    """The file's path, e.g. ``/memories/customers/acme.md``."""
    score: float
    """Relevance in [0, 1], higher is better, comparable only between the hits of one query:
    in hms-mcp's lexical build the hit's BM25 score divided by the best hit's (the best scores
    1), in the hybrid build the fused score."""
    excerpt: str
    """A verbatim passage of the file around the match."""
    line_start: int
    """The first line of the passage, 1-based."""
    line_end: int
    """The last line of the passage, 1-based, inclusive."""


def recall_tool_param() -> dict[str, Any]:
    """The tool definition sent to the Messages API."""
    return {
        "name": RECALL_TOOL_NAME,
        "description": RECALL_TOOL_DESCRIPTION,
        "input_schema": RECALL_INPUT_SCHEMA,
    }


def parse_recall_input(tool_input: object) -> tuple[str, int]:
    """The ``query`` and ``k`` of a ``memory_recall`` call, checked.

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
    """
    if not isinstance(tool_input, Mapping):
        raise MemoryToolError(
            "invalid_command",
            'Invalid memory_recall input: expected an object with a "query" field, '
            f"got {describe_value(tool_input)}.",
        )
    data = cast(Mapping[str, object], tool_input)
    query = data.get("query", MISSING)
    if query is MISSING:
        raise MemoryToolError(
            "invalid_argument", "Missing required parameter `query` for the memory_recall tool."
        )
    if not isinstance(query, str):
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `query` parameter: expected a string, got {describe_value(query)}.",
        )
    if query == "":
        raise MemoryToolError(
            "invalid_argument",
            "Invalid `query` parameter: it is empty. Give words or a question to search the "
            "memory files for.",
        )
    try:
        size = len(query.encode("utf-8"))
    except UnicodeEncodeError as error:
        surrogate = ord(query[error.start])
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `query` parameter: it contains an unpaired surrogate (U+{surrogate:X}), "
            "which is not valid Unicode text. Send complete characters only.",
        ) from None
    if size > MAX_QUERY_BYTES:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `query` parameter: it is {utf8_byte_length(query)} bytes long, over the "
            f"limit of {MAX_QUERY_BYTES} bytes. Use a shorter query.",
        )
    k = data.get("k", MISSING)
    if k is MISSING or k is None:
        return query, DEFAULT_RECALL_K
    if not is_integer(k):
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `k` parameter: expected an integer, got {describe_value(k)}.",
        )
    count = int(cast(float, k))
    if not 1 <= count <= MAX_RECALL_K:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `k` parameter: {count}. It should be from 1 to {MAX_RECALL_K}.",
        )
    return query, count


def format_score(score: float) -> str:
    """``score`` with exactly 4 decimals, as JavaScript's ``score.toFixed(4)``."""
    if score == 0:
        score = 0.0  # -0 prints as 0.0000, as in JavaScript
    exact = Decimal(score)  # the exact binary value, no rounding yet
    return str(exact.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP, context=_WIDE))


_WIDE: Final = Context(prec=400)  # enough digits for any double


def format_recall(hits: Sequence[RecallHit]) -> str:
    """The ``memory_recall`` result text for ``hits`` (see the module documentation)."""
    if not hits:
        return NO_HITS
    files = "file" if len(hits) == 1 else "files"
    parts = [
        f"Found {len(hits)} memory {files} matching the query, most relevant first. View a file "
        "with the memory tool to read all of it; view_range [start, end] shows just the lines "
        "given for a hit."
    ]
    for number, hit in enumerate(hits, start=1):
        if hit.line_start == hit.line_end:
            lines = f"line {hit.line_start}"
        else:
            lines = f"lines {hit.line_start}-{hit.line_end}"
        block = [f"{number}. {hit.path} ({lines}, score {format_score(hit.score)})"]
        excerpt = hit.excerpt.split("\n")
        if excerpt[-1] == "":
            excerpt.pop()
        block.extend(f"    {line}" for line in excerpt)
        parts.append("\n".join(block))
    return "\n\n".join(parts)
