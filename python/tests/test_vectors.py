"""The shared vectors as the run against hms-mcp (tests/e2e/test_vectors_hms.py) plays them:
most go through the SDK's command models, and some start from a file and a directory of one
name, which that run writes into the store directly."""

from __future__ import annotations

from .support.vectors import load_vectors, sdk_command

CASES = load_vectors()


def test_most_vectors_go_through_the_sdk_command_types() -> None:
    typed = [case for case in CASES if sdk_command(case["command"]) is not None]
    assert len(typed) > len(CASES) // 2


def test_some_vectors_start_from_a_file_and_a_directory_of_one_name() -> None:
    # What seed_files writes into the store directly; the server would refuse to create it.
    def both(files: dict[str, str]) -> bool:
        return any(other.startswith(path + "/") for path in files for other in files)

    assert any(both(case["files"]) for case in CASES)
