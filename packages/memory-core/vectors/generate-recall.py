"""Writes recall.json: the memory_recall vectors, with every expected string produced by the
Python package's reference implementation (hms_memory_tool.core's recall), so that the TypeScript
package is checked against Python's own output.

Run from the repository root, with the Python package's dependencies installed:

    PYTHONPATH=python/src python3 packages/memory-core/vectors/generate-recall.py
"""

import json
from pathlib import Path

from hms_memory_tool.core import (
    MemoryToolError,
    RecallHit,
    format_recall,
    parse_recall_input,
    recall_tool_definition,
)


def hit(path, score, excerpt, line_start, line_end, updated_at=None):
    out = {"path": path, "score": score, "excerpt": excerpt, "line_start": line_start,
           "line_end": line_end}
    if updated_at is not None:
        out["updated_at"] = updated_at
    return out


FORMAT_CASES = [
    ("no hits", []),
    ("one hit on one line", [hit("/memories/acme.md", 2.5, "Acme prefers email", 3, 3)]),
    ("two hits, multi-line excerpts, final LF dropped", [
        hit("/memories/customers/acme.md", 4.123456, "# Acme Corp\n- prefers email follow-ups\n", 1, 2),
        hit("/memories/notes.md", 0.98765, "email them on Mondays", 7, 7),
    ]),
    ("CR stays, an empty line in the excerpt is kept", [
        hit("/memories/w.txt", 1.0, "first\r\n\r\nthird\r\n", 10, 12),
    ]),
    ("two final LFs leave one empty line", [hit("/memories/a.md", 1.5, "a\n\n", 1, 2)]),
    ("empty excerpt has no lines", [hit("/memories/empty.md", 0.1, "", 1, 1)]),
    ("zero, minus zero and tiny negative scores", [
        hit("/memories/z1.md", 0.0, "z", 1, 1),
        hit("/memories/z2.md", -0.0, "z", 1, 1),
        hit("/memories/z3.md", -0.00004, "z", 1, 1),
        hit("/memories/z4.md", 0.000001, "z", 1, 1),
    ]),
    ("exact binary ties round away from zero", [
        hit("/memories/t1.md", 1.03125, "t", 1, 1),
        hit("/memories/t2.md", -1.03125, "t", 1, 1),
        hit("/memories/t3.md", 2.00005, "t", 1, 1),
        hit("/memories/t4.md", 12345.678949999, "t", 1, 1),
    ]),
    ("unicode paths and excerpts, leading spaces kept", [
        hit("/memories/日本/メモ.md", 3.25, "  indented 😀\n\tтаб", 4, 5),
    ]),
    ("absolute scores: a strong match, a partial one, one holding only common words", [
        hit("/memories/customers/acme.md", 0.4545454545, "Acme prefers email", 2, 2),
        hit("/memories/notes.md", 0.08946482683, "email Acme on Mondays", 7, 7),
        hit("/memories/old.md", 0.001, "acme", 1, 1),
    ]),
    ("twelve hits are numbered 1 to 12", [
        hit(f"/memories/f{i:02}.md", 12 - i, f"line {i}", i + 1, i + 1) for i in range(12)
    ]),
    ("each hit's last change, as the backend gave it", [
        hit("/memories/decisions.md", 0.4211, "We chose PostgreSQL", 12, 12,
            "2026-07-03T16:45:09.120Z"),
        hit("/memories/notes.md", 0.2, "postgres tuning\nnotes", 1, 2, "2026-06-30T08:00:00.000Z"),
        hit("/memories/old.md", 0.1, "no time known", 1, 1),
    ]),
]

# Format cases with a time range: (name, hits, modified_after, modified_before), the times as
# parse_recall_input normalizes them.
RANGE_CASES = [
    ("hits at or after a time", [
        hit("/memories/decisions.md", 0.4211, "We chose PostgreSQL", 12, 12,
            "2026-07-03T16:45:09.120Z"),
    ], "2026-07-01T00:00:00.000Z", None),
    ("hits before a time", [
        hit("/memories/a.md", 0.3, "a", 1, 1, "2026-06-30T23:59:59.999Z"),
        hit("/memories/b.md", 0.2, "b", 2, 3, "2026-01-01T00:00:00.000Z"),
    ], None, "2026-07-01T00:00:00.000Z"),
    ("hits within a range", [
        hit("/memories/week.md", 0.5, "this week", 1, 1, "2026-07-02T10:00:00.000Z"),
    ], "2026-06-29T00:00:00.000Z", "2026-07-06T00:00:00.000Z"),
    ("no hits at or after a time", [], "2026-07-01T00:00:00.000Z", None),
    ("no hits before a time", [], None, "2020-01-01T00:00:00.000Z"),
    ("no hits within a range", [], "2026-06-29T00:00:00.000Z", "2026-07-06T00:00:00.000Z"),
]

INPUT_CASES = [
    ("not an object: null", None),
    ("not an object: a string", "acme"),
    ("not an object: an array", ["acme"]),
    ("not an object: a number", 5),
    ("missing query", {}),
    ("missing query, k given", {"k": 3}),
    ("query is a number", {"query": 5}),
    ("query is null", {"query": None}),
    ("query is an object", {"query": {"text": "acme"}}),
    ("query is empty", {"query": ""}),
    ("query has a lone surrogate", {"query": "acme \ud800"}),
    ("query over 16384 bytes", {"query": "\u00e9" * 8193}),
    ("query at 16384 bytes", {"query": "\u00e9" * 8192}),
    ("k is a string", {"query": "acme", "k": "3"}),
    ("k is a fraction", {"query": "acme", "k": 2.5}),
    ("k is a boolean", {"query": "acme", "k": True}),
    ("k is 0", {"query": "acme", "k": 0}),
    ("k is 51", {"query": "acme", "k": 51}),
    ("k is negative", {"query": "acme", "k": -1}),
    ("k is null: the default", {"query": "acme", "k": None}),
    ("k omitted: the default", {"query": "acme follow-ups"}),
    ("k is 1", {"query": "acme", "k": 1}),
    ("k is 50", {"query": "acme", "k": 50}),
    ("k is 3.0", {"query": "acme", "k": 3.0}),
    ("an unknown field is ignored", {"query": "acme", "limit": 3}),
    ("modified_after in UTC", {"query": "acme", "modified_after": "2026-07-01T00:00:00Z"}),
    ("modified_before with an offset, seconds left out",
     {"query": "acme", "modified_before": "2026-07-01T09:30+02:00"}),
    ("both, with k", {"query": "acme", "k": 3, "modified_after": "2026-06-29T00:00:00.5Z",
                      "modified_before": "2026-07-06T00:00:00.000-00:00"}),
    ("a fraction finer than a millisecond rounds up",
     {"query": "acme", "modified_after": "2026-07-01T10:00:59.9991Z"}),
    ("equal bounds are allowed", {"query": "acme", "modified_after": "2026-07-01T00:00:00Z",
                                  "modified_before": "2026-07-01T02:00:00+02:00"}),
    ("null bounds are not given", {"query": "acme", "modified_after": None,
                                   "modified_before": None}),
    ("year 0000 and 9999 are in range", {"query": "acme", "modified_after": "0000-01-01T00:00Z",
                                         "modified_before": "9999-12-31T23:59:59.999Z"}),
    ("modified_after is a number", {"query": "acme", "modified_after": 1782864000000}),
    ("modified_before is an object", {"query": "acme", "modified_before": {"days": 7}}),
    ("modified_after is words", {"query": "acme", "modified_after": "last week"}),
    ("modified_after is a duration", {"query": "acme", "modified_after": "7d"}),
    ("modified_after is empty", {"query": "acme", "modified_after": ""}),
    ("modified_after is a date without a timezone",
     {"query": "acme", "modified_after": "2026-07-01"}),
    ("modified_before has no timezone", {"query": "acme",
                                         "modified_before": "2026-07-01T10:00:00"}),
    ("modified_after has a space for T", {"query": "acme",
                                          "modified_after": "2026-07-01 10:00:00Z"}),
    ("modified_after has a lower-case z", {"query": "acme",
                                           "modified_after": "2026-07-01T10:00:00z"}),
    ("modified_after has an offset without a colon",
     {"query": "acme", "modified_after": "2026-07-01T10:00:00+0200"}),
    ("modified_after has ten fraction digits",
     {"query": "acme", "modified_after": "2026-07-01T10:00:00.1234567890Z"}),
    ("modified_after has full-width digits",
     {"query": "acme", "modified_after": "\uff12\uff10\uff12\uff16-07-01T10:00:00Z"}),
    ("modified_after ends with a line break",
     {"query": "acme", "modified_after": "2026-07-01T10:00:00Z\n"}),
    ("modified_before is February 30", {"query": "acme",
                                        "modified_before": "2026-02-30T00:00:00Z"}),
    ("modified_after is February 29 of a year that is not leap",
     {"query": "acme", "modified_after": "1900-02-29T00:00:00Z"}),
    ("modified_after has hour 24", {"query": "acme", "modified_after": "2026-07-01T24:00:00Z"}),
    ("modified_after has a leap second", {"query": "acme",
                                          "modified_after": "2026-12-31T23:59:60Z"}),
    ("modified_after has an offset of 24 hours",
     {"query": "acme", "modified_after": "2026-07-01T10:00:00+24:00"}),
    ("modified_before falls after 9999 in UTC",
     {"query": "acme", "modified_before": "9999-12-31T23:30:00-01:00"}),
    ("modified_after falls before 0000 in UTC",
     {"query": "acme", "modified_after": "0000-01-01T00:30:00+01:00"}),
    ("modified_after later than modified_before",
     {"query": "acme", "modified_after": "2026-07-02T00:00:00+02:00",
      "modified_before": "2026-07-01T21:59:59Z"}),
    ("k is checked before the times", {"query": "acme", "k": 0, "modified_after": "soon"}),
    ("modified_after is checked before modified_before",
     {"query": "acme", "modified_after": "soon", "modified_before": "later"}),
]


def format_case(name, hits, modified_after=None, modified_before=None):
    recall_hits = [RecallHit(h["path"], h["score"], h["excerpt"], h["line_start"], h["line_end"],
                             h.get("updated_at")) for h in hits]
    case = {"name": name, "hits": hits}
    if modified_after is not None:
        case["modified_after"] = modified_after
    if modified_before is not None:
        case["modified_before"] = modified_before
    case["output"] = format_recall(recall_hits, modified_after, modified_before)
    return case


def input_case(name, value):
    case = {"name": name, "input": value}
    try:
        request = parse_recall_input(value)
    except MemoryToolError as error:
        case["error"] = error.message
        case["error_code"] = error.code
    else:
        case["query"] = request.query
        case["k"] = request.k
        if request.modified_after is not None:
            case["modified_after"] = request.modified_after
        if request.modified_before is not None:
            case["modified_before"] = request.modified_before
    return case


def main():
    vectors = {
        "format": 1,
        "description": (
            "The memory_recall tool of holographic-memory-claude-tool: its definition, the "
            "checks of its input (modified_after and modified_before as normalized, when "
            "given) and its result text (a hit's updated_at, and the case's time range, when "
            "given). Expected strings come from the Python "
            "package's hms_memory_tool.recall (generate-recall.py); the TypeScript package must "
            "produce the same characters."
        ),
        "tool": recall_tool_definition(),
        "format_cases": [format_case(name, hits) for name, hits in FORMAT_CASES]
        + [format_case(*case) for case in RANGE_CASES],
        "input_cases": [input_case(name, value) for name, value in INPUT_CASES],
    }
    out = Path(__file__).with_name("recall.json")
    out.write_text(json.dumps(vectors, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
