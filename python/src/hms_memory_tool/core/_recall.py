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
messages of :func:`parse_recall_input`. The limits (``k`` from 1 to 50, 5 by default, a query
of at most 16384 bytes) are hms-mcp's; the engine states them itself, so that it imports nothing
of the protocol with a server (a test holds them equal to :mod:`hms_memory_tool.protocol`'s).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, Final, cast

from hms_memory_tool.paths import MISSING, utf8_byte_length

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
    "it holds much of what was asked."
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

#: The text of a recall that found nothing.
NO_RECALL_HITS: Final = "No memory files matched the query. View /memories to see every file."


@dataclass(frozen=True)
class RecallInput:
    """A ``memory_recall`` call, checked: what to look for and how many files to return."""

    query: str
    k: int = DEFAULT_RECALL_K


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
    if k is MISSING or k is None:
        return RecallInput(query)
    if not is_integer(k):
        raise wrong_type("k", "an integer", k)
    count = int(cast(float, k))
    if not 1 <= count <= MAX_RECALL_K:
        raise MemoryToolError(
            "invalid_argument",
            f"Invalid `k` parameter: {count}. It should be from 1 to {MAX_RECALL_K}.",
        )
    return RecallInput(query, count)


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
        return NO_RECALL_HITS
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
