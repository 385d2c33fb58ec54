"""The engine issues the independent calls of a command together, so a remote backend answers
it in as few round trips as it can: a create, a delete and a rename each in one with the tree
operations, and the checks of a rename together in the first without them. Every command is
compared with the TypeScript engine's calls and round trips in
tests/e2e/test_round_trips_against_typescript.py."""

from __future__ import annotations

from .support.round_trips import COMMANDS, by_round_trip, run_python


def test_a_create_a_delete_and_a_rename_are_one_round_trip_with_the_tree_operations() -> None:
    for command in (COMMANDS[6], COMMANDS[15], COMMANDS[18]):
        assert len(by_round_trip(run_python("tree", command)["calls"])) == 1, command
    # and without them, the checks of a rename are issued together, in the first round trip
    assert by_round_trip(run_python("no-tree", COMMANDS[18])["calls"])[0] == [
        "list",
        "list",
        "read",
        "read",
    ]
