"""The Python path validator against the TypeScript one (@hms/memory-paths, run by Node from
its built dist) on thousands of generated paths: identical accept/reject, rule and message."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

from hms_memory_tool.paths import (
    COMPATIBILITY_KEPT_RANGES,
    INVISIBLE_RANGES,
    LOOKALIKES,
    MAX_NAME_BYTES,
    check_memory_path,
)

ORACLE = Path(__file__).parents[1] / "support" / "paths_oracle.mjs"
GENERATED = 20_000

# Characters at and around every table boundary, plus the structural ones.
_BOUNDARIES = sorted(
    {cp + d for low, high in INVISIBLE_RANGES for cp in (low, high) for d in (-1, 0, 1)}
    | {cp + d for low, high in COMPATIBILITY_KEPT_RANGES for cp in (low, high) for d in (-1, 0, 1)}
    # Compatibility characters: fullwidth, ligature, halfwidth katakana and its voiced mark,
    # circled and superscript digits, the ellipsis, a CJK square word, the micro sign.
    | {0xFF21, 0xFF10, 0xFB01, 0xFF76, 0xFF9E, 0x2460, 0x00B2, 0x3316, 0x00B5, 0x2F00}
    | set(LOOKALIKES)
    | {0x0, 0x1, 0x9, 0xA, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0x200C, 0x200D, 0xFE0F}
    | {0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0, 0xFFFD, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF, 0x2026}
    | {0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000}
)
_TOKENS = [
    "a",
    "b",
    "notes.md",
    "é",
    "€",
    "😀",
    "日本",
    " ",
    ".",
    "..",
    "...",
    ".env",
    "%",
    "%2e",
    "%2E",
    "%2f",
    "%5C",
    "%c0%ae",
    "%25",
    "%zz",
    "100%",
    "\\",
    "node_modules",
    "memories",
]


def _character(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return chr(rng.choice(_BOUNDARIES))
    if roll < 0.8:
        return chr(rng.randrange(0x20, 0x7F))
    return chr(rng.randrange(0x80, 0x110000))


def _name(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.1:  # near the 128-byte limit, in multi-byte characters
        unit = rng.choice(["a", "é", "€", "😀"])
        count = (MAX_NAME_BYTES + rng.randrange(-4, 5)) // len(unit.encode())
        return unit * count
    parts: list[str] = []
    for _ in range(rng.randrange(0, 4)):
        parts.append(rng.choice(_TOKENS) if rng.random() < 0.6 else _character(rng))
    return "".join(parts)


def _path(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.85:
        root = "/memories"
    else:
        root = rng.choice(["", "/", "memories", "/Memories", "/memories_backup", "//memories"])
    depth = rng.choice([0, 1, 1, 2, 3, 5, 15, 16, 17, 20])
    names = [_name(rng) for _ in range(depth)]
    path = root + "".join("/" + name for name in names)
    if rng.random() < 0.05:
        path += "/"
    return _no_surrogate_pairs(path)


def _no_surrogate_pairs(path: str) -> str:
    # A high surrogate followed by a low one is one character to JSON (and so to Node), but
    # two lone surrogates to Python; JSON never delivers that to Python, so skip it here.
    out: list[str] = []
    for ch in path:
        if out and 0xD800 <= ord(out[-1]) <= 0xDBFF and 0xDC00 <= ord(ch) <= 0xDFFF:
            out.append("x")
        out.append(ch)
    return "".join(out)


def _fixed_inputs() -> list[object]:
    long_tail = "/memories/" + "x" * 700  # longer than the 512 code points a message shows
    return [
        "/memories",
        "/memories/",
        "/memories/a",
        "/memories/../etc/passwd",
        "/memories/a/../../b",
        long_tail,
        "/memories/" + "\u202e" * 600,
        "/memories/" + "/".join("d" * 13 for _ in range(17)),
        "/memories/" + "/".join("d" for _ in range(17)),
        "/memories/" + "/".join("d" for _ in range(16)),
        None,
        1,
        2.5,
        True,
        [],
        {},
        "",
    ]


def test_python_and_typescript_validators_agree_on_generated_paths() -> None:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed to run the TypeScript validator"
    rng = random.Random(20250818)
    inputs: list[object] = _fixed_inputs() + [_path(rng) for _ in range(GENERATED)]

    completed = subprocess.run(
        [node, str(ORACLE)],
        input=json.dumps(inputs).encode("ascii"),  # ASCII JSON carries lone surrogates too
        capture_output=True,
        check=True,
        timeout=60,
    )
    expected = json.loads(completed.stdout)
    assert len(expected) == len(inputs)

    mismatches = []
    rules: dict[str | None, int] = {}
    for value, want in zip(inputs, expected, strict=True):
        error = check_memory_path(value)
        got = (
            {"rule": error.rule, "message": error.message}
            if error
            else {"rule": None, "message": None}
        )
        rules[got["rule"]] = rules.get(got["rule"], 0) + 1
        if got != want:
            mismatches.append((value, want, got))
    assert mismatches[:5] == [], f"{len(mismatches)} of {len(inputs)} differ"
    # The generator reached every rule that a JSON value can break, and valid paths too.
    assert set(rules) >= {
        None,
        "not-a-string",
        "nul",
        "invalid-unicode",
        "control-character",
        "invisible-character",
        "lookalike-character",
        "compatibility-character",
        "backslash",
        "percent-encoded",
        "outside-memories",
        "empty-segment",
        "dot-segment",
        "hidden-segment",
        "name-too-long",
        "path-too-long",
        "too-deep",
    }, rules
