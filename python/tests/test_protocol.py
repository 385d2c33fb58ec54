"""The hms-mcp contract as this package reads it from protocol.json (@hms/protocol): the
constants, the output schemas held against answers, and the protocol version a server must
state when the client connects (tests/e2e/test_protocol_at_connect.py holds server processes
to it)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hms_memory_tool import HmsMcpError, core
from hms_memory_tool.hms_backend import check_protocol_version
from hms_memory_tool.protocol import (
    CAPABILITY_KEY,
    DEFAULT_RECALL_K,
    ERROR_CODES,
    ERROR_META_KEY,
    MAX_PAGE,
    MAX_QUERY_BYTES,
    MAX_RECALL_K,
    MEMORY_FILE_TAG,
    PROTOCOL,
    PROTOCOL_VERSION,
    TOOL_NAMES,
    check_output,
    output_problem,
    stated_protocol_version,
)

from .support.servers import REPO

SOURCE = json.loads((REPO / "packages" / "protocol" / "protocol.json").read_text("utf-8"))


def test_the_engine_states_the_recall_bounds_of_the_protocol() -> None:
    # The engine (core) imports nothing of the protocol; its own copies must agree with it.
    assert (core.DEFAULT_RECALL_K, core.MAX_RECALL_K, core.MAX_QUERY_BYTES) == (
        DEFAULT_RECALL_K,
        MAX_RECALL_K,
        MAX_QUERY_BYTES,
    )


def test_the_constants_are_those_of_protocol_json() -> None:
    assert dict(PROTOCOL) == SOURCE
    assert (SOURCE["protocol_version"], SOURCE["capability"]) == (PROTOCOL_VERSION, CAPABILITY_KEY)
    assert (
        SOURCE["memory_file_tag"],
        SOURCE["error_meta_key"],
    ) == (MEMORY_FILE_TAG, ERROR_META_KEY)
    assert set(SOURCE["error_codes"]) == ERROR_CODES
    limits = SOURCE["limits"]
    assert (
        limits["default_recall_k"],
        limits["max_recall_k"],
        limits["max_query_bytes"],
        limits["max_page"],
    ) == (DEFAULT_RECALL_K, MAX_RECALL_K, MAX_QUERY_BYTES, MAX_PAGE)
    assert set(TOOL_NAMES) >= {"get", "list", "remember", "forget", "move", "stats", "recall"}


ENTRY: dict[str, Any] = {
    "key": "/memories/a.md",
    "bytes": 3,
    "version": 7,
    "tags": ["memory-file"],
    "updated_at": "2026-01-01T00:00:00.000Z",
}


@pytest.mark.parametrize(
    ("tool", "answer", "problem"),
    [
        ("list", {"items": [ENTRY], "next_cursor": None}, None),
        ("list", {"items": [ENTRY], "next_cursor": "c1", "added_later": True}, None),
        ("list", {"items": [ENTRY]}, "next_cursor: missing"),
        ("list", {"items": [ENTRY, {**ENTRY, "version": "7"}], "next_cursor": None},
         "items.1.version: expected an integer"),
        ("list", {"items": [{**ENTRY, "version": True}], "next_cursor": None},
         "items.0.version: expected an integer"),
        ("list", {"items": [{**ENTRY, "bytes": -1}], "next_cursor": None},
         "items.0.bytes: expected at least 0"),
        ("list", {"items": [], "next_cursor": 3}, "next_cursor: expected a string or null"),
        ("forget", {"deleted": 2.5}, "deleted: expected an integer"),
        ("move", {"moved": 0}, None),
        ("move", [], "the answer: expected an object"),
        ("recall", {"hits": [], "build": "telepathic"},
         'build: expected one of "lexical", "hybrid"'),
        ("nonesuch", {}, None),
    ],
)  # fmt: skip
def test_answers_are_held_to_the_output_schemas(
    tool: str, answer: object, problem: str | None
) -> None:
    found = output_problem(tool, answer)
    assert (None if found is None else str(found)) == problem
    if problem is None:
        check_output(tool, answer)
    else:
        with pytest.raises(ValueError, match=re.escape(problem)):
            check_output(tool, answer)


def test_any_of_accepts_a_value_that_fits_one_of_its_schemas() -> None:
    # history's next_before is an integer or null (anyOf in protocol.json).
    page: dict[str, object] = {"changes": [], "next_before": None}
    assert output_problem("history", page) is None
    assert output_problem("history", {**page, "next_before": 12}) is None
    found = output_problem("history", {**page, "next_before": "12"})
    assert found is not None
    assert str(found) == "next_before: expected an integer or expected null"


def test_a_problem_says_where_it_is() -> None:
    found = output_problem("list", {"items": [{**ENTRY, "key": 1}], "next_cursor": None})
    assert found is not None
    assert (found.path, found.where, found.message) == (
        ("items", 0, "key"),
        " at items.0.key",
        "expected a string",
    )
    root = output_problem("stats", None)
    assert root is not None
    assert (root.path, root.where) == ((), "")


def test_a_schema_keyword_the_checker_does_not_know_is_refused_not_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tools = dict(PROTOCOL["tools"])
    tools["move"] = {"output_schema": {"type": "object", "oneOf": []}}
    monkeypatch.setattr("hms_memory_tool.protocol._TOOLS", tools)
    with pytest.raises(ValueError, match=r"unsupported schema keywords \['oneOf'\]"):
        output_problem("move", {"moved": 1})


@pytest.mark.parametrize(
    ("experimental", "stated"),
    [
        ({"hms-mcp": {"protocolVersion": 1}}, 1),
        ({"hms-mcp": {"protocolVersion": 2}, "other": {}}, 2),
        ({"hms-mcp": {"protocolVersion": "1"}}, None),
        ({"hms-mcp": {"protocolVersion": True}}, None),
        ({"hms-mcp": {}}, None),
        ({"hms-mcp": 1}, None),
        ({}, None),
        (None, None),
    ],
)
def test_the_stated_protocol_version(experimental: object, stated: int | None) -> None:
    assert stated_protocol_version(experimental) == stated


def test_a_server_of_another_protocol_version_is_refused_naming_both() -> None:
    check_protocol_version({CAPABILITY_KEY: {"protocolVersion": PROTOCOL_VERSION}}, "here")
    other = PROTOCOL_VERSION + 1
    with pytest.raises(HmsMcpError) as caught:
        check_protocol_version({CAPABILITY_KEY: {"protocolVersion": other}}, "srv")
    assert (caught.value.code, caught.value.message) == (
        "PROTOCOL",
        f"srv speaks hms-mcp protocol {other}; this client needs protocol {PROTOCOL_VERSION}. "
        "Install versions of hms-mcp and this package that match.",
    )
    with pytest.raises(HmsMcpError) as missing:
        check_protocol_version({}, "srv")
    assert (missing.value.code, missing.value.message) == (
        "PROTOCOL",
        "srv is not hms-mcp: it states no hms-mcp protocol version in its capabilities (this "
        f"client needs protocol {PROTOCOL_VERSION}).",
    )
