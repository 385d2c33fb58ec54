"""Cross-language traps, named one by one: sizes, lines, code points, bytes, integers."""

from __future__ import annotations

import doctest

import pytest

import hms_memory_tool.core
import hms_memory_tool.paths
from hms_memory_tool.core import describe_value, human_size, is_integer, split_lines
from hms_memory_tool.paths import (
    MISSING,
    HmsError,
    MemoryPathError,
    ancestor_paths,
    base_name,
    check_memory_path,
    display_path,
    is_same_or_under,
    is_under,
    join_path,
    parent_path,
    path_depth,
    path_names,
    rebase_path,
    utf8_byte_length,
)


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0B"),
        (512, "512B"),
        (1023, "1023B"),
        (1024, "1K"),
        (1280, "1.3K"),  # 1.25K: half up, as toFixed(1); Python's :.1f would give 1.2K
        (1792, "1.8K"),
        (2047, "2.0K"),
        (10_240, "10K"),
        (1_048_575, "1024.0K"),
        (1_048_576, "1M"),
        (1_310_720, "1.3M"),
        (2**30, "1G"),
        (5 * 2**40, "5120G"),
    ],
)
def test_human_sizes_round_half_up_with_integers(size: int, shown: str) -> None:
    assert human_size(size) == shown


def test_lines_end_at_lf_only_unlike_str_splitlines() -> None:
    text = "a\r\nb\x0bc\x0cd\u2028e\x85f\n"
    assert split_lines(text) == ["a\r", "b\x0bc\x0cd\u2028e\x85f"]
    assert len(text.splitlines()) == 6  # the trap the port avoids
    assert split_lines("") == []
    assert split_lines("a\n\n") == ["a", ""]
    assert split_lines("a\nb") == split_lines("a\nb\n") == ["a", "b"]


def test_json_values_are_named_as_in_typescript() -> None:
    values: list[object] = [MISSING, None, True, 3, 3.0, 3.5, 2**60, 2.0**60, float("nan")]
    values += ["s", [], {}]
    assert [describe_value(v) for v in values] == [
        "nothing",
        "null",
        "a boolean",
        "an integer",
        "an integer",
        "a fractional number",
        "an integer too large to be exact",
        "an integer too large to be exact",
        "a number",
        "a string",
        "an array",
        "an object",
    ]
    assert is_integer(2**53 - 1)
    assert not is_integer(2**53)  # not a safe integer in JavaScript
    assert not is_integer(float("inf"))
    assert not is_integer(False)


def test_limits_count_utf8_bytes() -> None:
    assert utf8_byte_length("é€😀") == 9
    assert utf8_byte_length("\ud800") == 3  # a lone surrogate, as JavaScript counts it
    name = "é" * 64  # 128 bytes: the limit
    assert check_memory_path(f"/memories/{name}") is None
    error = check_memory_path(f"/memories/{name}a")
    assert error is not None
    assert error.rule == "name-too-long"


def test_paths_sort_by_code_point_which_python_does_natively() -> None:
    names = ["😀", "\uff61", "a", "é"]
    assert sorted(names) == ["a", "é", "\uff61", "😀"]  # JavaScript's sort() puts 😀 first


def test_a_missing_path_is_nothing_and_messages_never_carry_raw_controls() -> None:
    error = check_memory_path(MISSING)
    assert error is not None
    assert error.message == (
        "Invalid memory path: expected a string such as /memories/notes.md, got nothing."
    )
    assert display_path("/memories/a\nb\u202e") == "/memories/a<U+000A>b<U+202E>"
    assert display_path("") == '""'
    assert display_path("x" * 600) == "x" * 512 + "…"


def test_helpers_validate_and_never_let_a_path_escape() -> None:
    assert path_names("/memories/a/b.md") == ["a", "b.md"]
    assert path_depth("/memories") == 0
    assert parent_path("/memories/a/b.md") == "/memories/a"
    assert parent_path("/memories") is None
    assert base_name("/memories/a/b.md") == "b.md"
    assert ancestor_paths("/memories/a/b/c") == ["/memories", "/memories/a", "/memories/a/b"]
    assert join_path("/memories/a", "b/c.md") == "/memories/a/b/c.md"
    assert is_under("/memories/a/b", "/memories/a")
    assert not is_under("/memories/ab", "/memories/a")
    assert is_same_or_under("/memories/a", "/memories/a")
    assert rebase_path("/memories/a/x/y.md", "/memories/a", "/memories/b") == "/memories/b/x/y.md"
    with pytest.raises(ValueError, match="relative segments are not allowed"):
        join_path("/memories/a", "../../etc")
    with pytest.raises(ValueError, match="is not /memories/a or under it"):
        rebase_path("/memories/b/x", "/memories/a", "/memories/c")


def test_the_examples_in_the_module_documentation_hold() -> None:
    for module in (hms_memory_tool.paths, hms_memory_tool.core):
        result = doctest.testmod(module, raise_on_error=False)
        assert result.attempted > 0
        assert result.failed == 0


def test_a_memory_path_error_is_an_hms_error_and_a_value_error() -> None:
    error = check_memory_path("/memories/../x")
    assert isinstance(error, MemoryPathError)
    assert isinstance(error, HmsError)
    assert isinstance(error, ValueError)
