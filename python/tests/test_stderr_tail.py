"""The last lines of a started server's stderr that a failed connect carries (the same rules as
packages/memory-backend-hms/src/stderr-tail.test.ts)."""

from __future__ import annotations

from hms_memory_tool.hms_backend.stderr_tail import StderrTail, describe_stderr


def test_keeps_the_last_ten_non_empty_lines_without_trailing_spaces() -> None:
    tail = StderrTail()
    for i in range(1, 13):
        tail.push(f"line {i} \t\r\n\n")
    assert tail.lines() == [f"line {i}" for i in range(3, 13)]


def test_decodes_utf8_split_across_chunks_and_shows_an_unfinished_last_line() -> None:
    tail = StderrTail()
    for byte in "né\nfatal: ü".encode():
        tail.push(bytes([byte]))
    assert tail.lines() == ["né", "fatal: ü"]


def test_cuts_a_long_line_at_500_code_points_even_one_that_never_ends() -> None:
    tail = StderrTail()
    tail.push("😀" * 100_000)
    assert tail.lines() == ["😀" * 500 + "…"]


def test_words_the_stderr_part_of_a_failed_connect() -> None:
    assert describe_stderr(["a", "b"], closed=True) == "\nIts stderr ended with:\na\nb"
    assert describe_stderr([], closed=True) == " It wrote nothing on stderr."
    assert describe_stderr([], closed=False) == ""
