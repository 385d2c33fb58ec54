"""Commands are parsed once into typed commands (frozen dataclasses), every field checked with
the messages both languages share, then run: the engine's handlers only see checked commands."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from anthropic.types.beta import (
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool.core import (
    COMMAND_TYPES,
    MEMORY_COMMANDS,
    CreateCommand,
    DeleteCommand,
    InMemoryBackend,
    InsertCommand,
    MemoryEngine,
    MemoryToolError,
    RenameCommand,
    StrReplaceCommand,
    ViewCommand,
    parse_command,
    parse_command_as,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ({"command": "view", "path": "/memories"}, ViewCommand("/memories")),
        ({"command": "view", "path": "/memories/a", "view_range": [2, -1]},
         ViewCommand("/memories/a", (2, -1))),
        ({"command": "view", "path": "/memories/a", "view_range": [1.0, 3]},
         ViewCommand("/memories/a", (1, 3))),
        ({"command": "view", "path": "/memories/a", "view_range": None},
         ViewCommand("/memories/a")),
        ({"command": "create", "path": "/memories/a", "file_text": ""},
         CreateCommand("/memories/a", "")),
        ({"command": "str_replace", "path": "/memories/a", "old_str": "x"},
         StrReplaceCommand("/memories/a", "x", "")),
        ({"command": "str_replace", "path": "/memories/a", "old_str": "x", "new_str": None},
         StrReplaceCommand("/memories/a", "x", "")),
        ({"command": "insert", "path": "/memories/a", "insert_line": 3.0, "insert_text": "t"},
         InsertCommand("/memories/a", 3, "t")),
        ({"command": "delete", "path": "/memories/a", "extra": 1}, DeleteCommand("/memories/a")),
        ({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/b"},
         RenameCommand("/memories/a", "/memories/b")),
    ],
)  # fmt: skip
def test_a_raw_command_becomes_a_typed_one(raw: dict[str, Any], parsed: object) -> None:
    command = parse_command(raw)
    assert command == parsed
    assert command.command == raw["command"]
    assert type(command).command == raw["command"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(command, dataclasses.fields(command)[0].name, "/memories/other")


def test_there_is_one_command_type_per_command_name() -> None:
    assert [kind.command for kind in COMMAND_TYPES] == list(MEMORY_COMMANDS)


def test_the_sdk_models_parse_as_their_dicts_do() -> None:
    view = BetaMemoryTool20250818ViewCommand(command="view", path="/memories/a")
    assert parse_command(view) == ViewCommand("/memories/a")
    insert = BetaMemoryTool20250818InsertCommand(
        command="insert", path="/memories/a", insert_line=0, insert_text="x"
    )
    assert parse_command(insert) == InsertCommand("/memories/a", 0, "x")
    replace = BetaMemoryTool20250818StrReplaceCommand(
        command="str_replace", path="/memories/a", old_str="a", new_str="b"
    )
    assert parse_command_as("str_replace", replace) == StrReplaceCommand("/memories/a", "a", "b")


def test_a_typed_command_is_taken_as_it_is() -> None:
    command = CreateCommand("/memories/a", "x")
    assert parse_command(command) is command
    assert parse_command_as("create", command) is command


def test_a_named_method_reads_its_input_as_that_command() -> None:
    # As the SDK's typed methods do: view() reads a view whatever "command" says.
    assert parse_command_as("view", {"command": "create", "path": "/memories/a"}) == ViewCommand(
        "/memories/a"
    )
    with pytest.raises(MemoryToolError) as caught:
        parse_command_as("view", CreateCommand("/memories/a", "x"))
    assert caught.value.message == (
        'Invalid memory command: expected an object with a "command" field, got a CreateCommand.'
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"command": "insert", "path": "/memories/a", "insert_text": 5},
         "Missing required parameter `insert_line` for the insert command."),
        ({"command": "insert", "insert_line": "x", "insert_text": 5},
         "Missing required parameter `path` for the insert command."),
        ({"command": "str_replace", "path": "/memories/a", "old_str": "", "new_str": 5},
         "Invalid `new_str` parameter: expected a string, got an integer."),
        ({"command": "str_replace", "path": "/memories/a", "old_str": ""},
         "Invalid `old_str` parameter: it is empty. Give the exact text to replace, with enough "
         "surrounding text to appear only once in /memories/a."),
        ({"command": "rename", "old_path": "/memories/a", "new_path": "/x"},
         "Invalid memory path /x: memory paths must be /memories or start with /memories/, for "
         "example /memories/notes.md."),
    ],
)  # fmt: skip
def test_fields_are_checked_in_order_and_the_first_wrong_one_is_named(
    raw: dict[str, Any], message: str
) -> None:
    with pytest.raises(MemoryToolError) as caught:
        parse_command(raw)
    assert caught.value.message == message


async def test_the_engine_runs_typed_commands() -> None:
    backend = InMemoryBackend()
    engine = MemoryEngine(backend)
    assert await engine.run(CreateCommand("/memories/a.md", "one\n")) == (
        "File created successfully at: /memories/a.md"
    )
    assert await engine.run(InsertCommand("/memories/a.md", 1, "two")) == (
        "The file /memories/a.md has been edited."
    )
    assert await engine.view(ViewCommand("/memories/a.md", (2, 2))) == (
        "Here's the content of /memories/a.md with line numbers:\n     2\ttwo"
    )
    assert await engine.execute(RenameCommand("/memories/a.md", "/memories/b.md")) == (
        "Successfully renamed /memories/a.md to /memories/b.md"
    )
    assert backend.snapshot() == {"/memories/b.md": "one\ntwo\n"}
