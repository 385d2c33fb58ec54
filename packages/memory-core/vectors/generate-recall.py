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


def hit(path, score, excerpt, line_start, line_end):
    return {"path": path, "score": score, "excerpt": excerpt, "line_start": line_start,
            "line_end": line_end}


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
]


def format_case(name, hits):
    recall_hits = [RecallHit(h["path"], h["score"], h["excerpt"], h["line_start"], h["line_end"])
                   for h in hits]
    return {"name": name, "hits": hits, "output": format_recall(recall_hits)}


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
    return case


def main():
    vectors = {
        "format": 1,
        "description": (
            "The memory_recall tool of holographic-memory-claude-tool: its definition, the "
            "checks of its input and its result text. Expected strings come from the Python "
            "package's hms_memory_tool.recall (generate-recall.py); the TypeScript package must "
            "produce the same characters."
        ),
        "tool": recall_tool_definition(),
        "format_cases": [format_case(name, hits) for name, hits in FORMAT_CASES],
        "input_cases": [input_case(name, value) for name, value in INPUT_CASES],
    }
    out = Path(__file__).with_name("recall.json")
    out.write_text(json.dumps(vectors, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
