"""memory_recall: the text format (the reference the TypeScript engine mirrors), its input
checks and recall in the engine. The tool definition, the format and the input checks are
pinned for both languages by one file, packages/memory-core/vectors/recall.json, which both
suites run. Recall against a real hms-mcp is in tests/e2e/test_recall_hms.py, and scores
against JavaScript's toFixed on many values in
tests/e2e/test_recall_scores_against_javascript.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hms_memory_tool import (
    HolographicMemoryError,
    HolographicMemoryToolSync,
    InMemoryBackend,
    MemoryEngine,
    MemoryToolError,
    RecallHit,
)
from hms_memory_tool.core import (
    NO_RECALL_HITS,
    RECALL_BY_TIME_UNSUPPORTED,
    RecallInput,
    format_recall,
    format_score,
    parse_recall_input,
    recall_tool_definition,
)

from .support.servers import REPO

RECALL_VECTORS = json.loads(
    (REPO / "packages" / "memory-core" / "vectors" / "recall.json").read_text(encoding="utf-8")
)


def test_the_tool_definition_is_the_one_in_recall_json() -> None:
    assert recall_tool_definition() == RECALL_VECTORS["tool"]
    # Key for key in the same order too, as the TypeScript suite compares it.
    assert json.dumps(recall_tool_definition()) == json.dumps(RECALL_VECTORS["tool"])


@pytest.mark.parametrize(
    "case", RECALL_VECTORS["format_cases"], ids=[c["name"] for c in RECALL_VECTORS["format_cases"]]
)
def test_the_text_of_recall_json_format_cases(case: dict[str, Any]) -> None:
    hits = [
        RecallHit(
            h["path"], h["score"], h["excerpt"], h["line_start"], h["line_end"], h.get("updated_at")
        )
        for h in case["hits"]
    ]
    range_ = (case.get("modified_after"), case.get("modified_before"))
    assert format_recall(hits, *range_) == case["output"]


@pytest.mark.parametrize(
    "case", RECALL_VECTORS["input_cases"], ids=[c["name"] for c in RECALL_VECTORS["input_cases"]]
)
def test_the_input_checks_of_recall_json_input_cases(case: dict[str, Any]) -> None:
    if "error" not in case:
        assert parse_recall_input(case["input"]) == RecallInput(
            case["query"], case["k"], case.get("modified_after"), case.get("modified_before")
        )
        return
    with pytest.raises(MemoryToolError) as caught:
        parse_recall_input(case["input"])
    assert (caught.value.message, caught.value.code) == (case["error"], case["error_code"])


def test_recall_json_covers_the_format_and_the_checks() -> None:
    assert len(RECALL_VECTORS["format_cases"]) >= 10
    assert len(RECALL_VECTORS["input_cases"]) >= 25
    assert any("error" in case for case in RECALL_VECTORS["input_cases"])


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (0.0, "0.0000"),
        (-0.0, "0.0000"),
        (1e-06, "0.0000"),
        (-1e-06, "-0.0000"),  # as JavaScript's (-1e-6).toFixed(4)
        (0.03125, "0.0313"),  # an exact tie rounds away from zero (Python's round gives 0.0312)
        (-0.03125, "-0.0313"),
        (2.00005, "2.0000"),  # the double is just below 2.00005
        (1.00005, "1.0001"),  # the double is just above 1.00005
        (12.3456789, "12.3457"),
        (123456789.5, "123456789.5000"),
    ],
)
def test_scores_have_four_decimals_as_javascripts_to_fixed(score: float, shown: str) -> None:
    assert format_score(score) == shown


def test_the_text_of_hits() -> None:
    hits = [
        RecallHit("/memories/customers/acme.md", 2.71828, "Acme Corp\r\n- prefers email\n", 1, 2),
        RecallHit("/memories/notes.md", 0.5, "call Acme on Monday", 7, 7),
        RecallHit("/memories/empty.md", 0.25, "", 3, 3),
    ]
    assert format_recall(hits) == (
        "Found 3 memory files matching the query, most relevant first. View a file with the "
        "memory tool to read all of it; view_range [start, end] shows just the lines given for "
        "a hit.\n"
        "\n"
        "1. /memories/customers/acme.md (lines 1-2, score 2.7183)\n"
        "    Acme Corp\r\n"
        "    - prefers email\n"
        "\n"
        "2. /memories/notes.md (line 7, score 0.5000)\n"
        "    call Acme on Monday\n"
        "\n"
        "3. /memories/empty.md (line 3, score 0.2500)"
    )
    assert format_recall(hits[1:2]).startswith("Found 1 memory file matching the query,")
    assert format_recall([]) == NO_RECALL_HITS
    assert NO_RECALL_HITS == "No memory files matched the query. View /memories to see every file."


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        (None, 'Invalid memory_recall input: expected an object with a "query" field, got null.'),
        ({}, "Missing required parameter `query` for the memory_recall tool."),
        ({"query": 3}, "Invalid `query` parameter: expected a string, got an integer."),
        (
            {"query": ""},
            "Invalid `query` parameter: it is empty. Give words or a question to search the "
            "memory files for.",
        ),
        (
            {"query": "é" * 8193},
            "Invalid `query` parameter: it is 16386 bytes long, over the limit of 16384 bytes. "
            "Use a shorter query.",
        ),
        (
            {"query": "a\ud800"},
            "Invalid `query` parameter: it contains an unpaired surrogate (U+D800), which is "
            "not valid Unicode text. Send complete characters only.",
        ),
        ({"query": "q", "k": "5"}, "Invalid `k` parameter: expected an integer, got a string."),
        (
            {"query": "q", "k": 2.5},
            "Invalid `k` parameter: expected an integer, got a fractional number.",
        ),
        ({"query": "q", "k": 0}, "Invalid `k` parameter: 0. It should be from 1 to 50."),
        ({"query": "q", "k": 51}, "Invalid `k` parameter: 51. It should be from 1 to 50."),
    ],
)
def test_recall_input_errors(tool_input: object, message: str) -> None:
    with pytest.raises(MemoryToolError) as caught:
        parse_recall_input(tool_input)
    assert str(caught.value) == message


def test_recall_input_defaults() -> None:
    assert parse_recall_input({"query": "q"}) == RecallInput("q", 5)
    assert parse_recall_input({"query": "q", "k": None}) == RecallInput("q", 5)
    assert parse_recall_input({"query": "q", "k": 3.0}) == RecallInput("q", 3)
    checked = RecallInput("q", 7)
    assert parse_recall_input(checked) is checked  # parsed once


RECALL_UNSUPPORTED = (
    "memory_recall is not available: this memory backend cannot search its files. Use the "
    "memory tool's view command to find what you stored."
)


def test_recall_needs_a_backend_that_can_recall() -> None:
    memory = HolographicMemoryToolSync(InMemoryBackend())
    try:
        # The tool refuses when it is set up, not when Claude calls it.
        with pytest.raises(HolographicMemoryError) as setup:
            memory.recall_tool()
        assert (setup.value.code, setup.value.message) == (
            "unsupported",
            "recall_tool() needs a backend that can recall, such as hms-mcp's (connect()); "
            "this tool's backend (InMemoryBackend) has no recall.",
        )
        # recall() refuses with the engine's error.
        with pytest.raises(MemoryToolError) as refused:
            memory.recall("acme")
        assert (refused.value.code, refused.value.message) == ("unsupported", RECALL_UNSUPPORTED)
    finally:
        memory.close()


@pytest.mark.anyio
async def test_the_engine_checks_the_input_before_asking_for_a_recall() -> None:
    engine = MemoryEngine(InMemoryBackend())
    assert not engine.can_recall
    with pytest.raises(MemoryToolError) as refused:
        await engine.recall({"query": ""})
    assert refused.value.code == "invalid_argument"  # the input first, then the backend
    with pytest.raises(MemoryToolError) as unsupported:
        await engine.recall({"query": "acme"})
    assert (unsupported.value.code, unsupported.value.message) == (
        "unsupported",
        RECALL_UNSUPPORTED,
    )
    with pytest.raises(MemoryToolError, match=r"^Invalid `k` parameter: 0\."):
        await engine.recall_hits("acme", 0)


@pytest.mark.anyio
async def test_the_engine_recalls_from_a_backend_that_can() -> None:
    class Searching(InMemoryBackend):
        """The in-memory backend with a recall that finds every file, best first by name."""

        async def recall(self, query: str, k: int) -> list[RecallHit]:
            files = [(path, text) for path, text in self.snapshot().items() if query in text]
            return [RecallHit(path, 1.0, text, 1, 1) for path, text in files[:k]]

    backend = Searching(files={"/memories/a.md": "acme", "/memories/b.md": "acme too"})
    engine = MemoryEngine(backend)
    assert engine.can_recall
    hits = await engine.recall_hits("acme", 1)
    assert hits == [RecallHit("/memories/a.md", 1.0, "acme", 1, 1)]
    assert await engine.recall({"query": "acme"}) == format_recall(await backend.recall("acme", 5))


class _Dated(InMemoryBackend):
    """An in-memory backend whose files changed at given times, recalling by substring within
    a range (or ignoring it, as a backend written before ranges would)."""

    def __init__(self, files: dict[str, tuple[str, str]], honours_range: bool = True) -> None:
        super().__init__(files={path: text for path, (text, _) in files.items()})
        self.times = files
        self.honours_range = honours_range
        self.ranges: list[tuple[str | None, str | None]] = []

    async def recall(
        self,
        query: str,
        k: int,
        *,
        modified_after: str | None = None,
        modified_before: str | None = None,
    ) -> list[RecallHit]:
        self.ranges.append((modified_after, modified_before))
        low, high = (modified_after or "", modified_before or "~")
        if not self.honours_range:
            low, high = "", "~"
        return [
            RecallHit(path, 0.5, text, 1, 1, at)
            for path, (text, at) in self.times.items()
            if query in text and low <= at < high
        ][:k]


@pytest.mark.anyio
async def test_the_engine_passes_a_time_range_normalized_and_shows_it_with_each_hits_time() -> None:
    backend = _Dated(
        {
            "/memories/old.md": ("plan", "2026-06-01T00:00:00.000Z"),
            "/memories/new.md": ("plan", "2026-07-02T08:00:00.000Z"),
        }
    )
    engine = MemoryEngine(backend)
    text = await engine.recall({"query": "plan", "modified_after": "2026-07-01T02:00:00+02:00"})
    assert text == (
        "Found 1 memory file modified at or after 2026-07-01T00:00:00.000Z matching the query, "
        "most relevant first. View a file with the memory tool to read all of it; view_range "
        "[start, end] shows just the lines given for a hit.\n\n"
        "1. /memories/new.md (line 1, score 0.5000, modified 2026-07-02T08:00:00.000Z)\n    plan"
    )
    assert await engine.recall({"query": "plan", "modified_before": "2026-05-01T00:00:00Z"}) == (
        "No memory files modified before 2026-05-01T00:00:00.000Z matched the query. Leave out "
        "modified_after and modified_before to search every file."
    )
    hits = await engine.recall_hits("plan", 5, modified_before="2026-07-01T00:00Z")
    assert [hit.path for hit in hits] == ["/memories/old.md"]
    await engine.recall({"query": "plan"})
    assert backend.ranges == [
        ("2026-07-01T00:00:00.000Z", None),
        (None, "2026-05-01T00:00:00.000Z"),
        (None, "2026-07-01T00:00:00.000Z"),
        (None, None),
    ]
    with pytest.raises(MemoryToolError, match=r"^Invalid `modified_after` parameter: 2026-07-01 "):
        await engine.recall({"query": "plan", "modified_after": "2026-07-01"})
    assert len(backend.ranges) == 4  # refused before the backend was asked


@pytest.mark.anyio
async def test_the_engine_refuses_a_backend_that_ignores_the_range_or_gives_no_times() -> None:
    since = {"query": "plan", "modified_after": "2026-07-01T00:00:00Z"}
    ignoring = MemoryEngine(
        _Dated({"/memories/old.md": ("plan", "2026-06-01T00:00:00.000Z")}, honours_range=False)
    )
    with pytest.raises(MemoryToolError) as refused:
        await ignoring.recall(since)
    assert (refused.value.code, refused.value.message) == (
        "unsupported",
        RECALL_BY_TIME_UNSUPPORTED,
    )

    class Timeless(InMemoryBackend):
        async def recall(
            self,
            query: str,
            k: int,
            *,
            modified_after: str | None = None,
            modified_before: str | None = None,
        ) -> list[RecallHit]:
            return [RecallHit("/memories/a.md", 0.5, "plan", 1, 1)]

    timeless = MemoryEngine(Timeless())
    with pytest.raises(MemoryToolError) as none:
        await timeless.recall(since)
    assert none.value.message == RECALL_BY_TIME_UNSUPPORTED
    assert "(line 1, score 0.5000)\n" in await timeless.recall({"query": "plan"})
    assert RECALL_BY_TIME_UNSUPPORTED == (
        "memory_recall cannot filter by time with this memory backend: it does not report when "
        "files changed. Recall without modified_after and modified_before."
    )
