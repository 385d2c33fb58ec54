"""The Python engine makes the same backend calls as the TypeScript engine, in the same round
trips: both issue the independent calls of a command together (TypeScript with Promise.all,
Python with a task group), so a remote backend answers each command in as few round trips in
either language. Each command runs in both engines over their in-memory backends, wrapped to
record every call and the round trip it belongs to (tests/support/round_trips.py is the Python
side, tests/support/ts_round_trips.mjs the TypeScript side, run by Node)."""

from __future__ import annotations

import builtins
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.round_trips import (
    CONFIGURATIONS,
    FILES_WITH_G,
    by_round_trip,
    run_python,
    scenarios,
)
from tests.support.servers import node

TS_ROUND_TRIPS = Path(__file__).parents[1] / "support" / "ts_round_trips.mjs"


@pytest.fixture(scope="module")
def typescript() -> dict[tuple[str, str], dict[str, Any]]:
    """Every scenario through the TypeScript engine, in one node process."""
    todo = scenarios()
    payload = [
        {"options": CONFIGURATIONS[name][0], "files": FILES_WITH_G, "command": command}
        for name, command in todo
    ]
    completed = subprocess.run(
        [node(), str(TS_ROUND_TRIPS)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    results: builtins.list[dict[str, Any]] = json.loads(completed.stdout)
    return {
        (name, json.dumps(command)): r for (name, command), r in zip(todo, results, strict=True)
    }


@pytest.mark.parametrize(
    ("configuration", "command"),
    scenarios(),
    ids=[f"{name}-{c['command']}-{c.get('path', c.get('old_path'))}" for name, c in scenarios()],
)
def test_same_calls_in_the_same_round_trips_as_typescript(
    configuration: str,
    command: dict[str, Any],
    typescript: dict[tuple[str, str], dict[str, Any]],
) -> None:
    theirs = typescript[(configuration, json.dumps(command))]
    ours = run_python(configuration, command)
    assert ours.get("output") == theirs.get("output")
    assert ours.get("error") == theirs.get("error")
    assert by_round_trip(ours["calls"]) == by_round_trip(theirs["calls"])
