"""The Python engine beyond the shared vectors: SDK command types, typed commands, size limits,
compare-and-set races, renames without the tree operations and paging, over the in-memory
backend."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import anyio
import pytest
from anthropic.lib.tools import ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool.core import (
    DEFAULT_MAX_FILE_BYTES,
    BackendOperation,
    InMemoryBackend,
    MemoryBackendError,
    MemoryEngine,
    MemoryToolError,
    MemoryVersion,
    RetryPolicy,
)
from hms_memory_tool.paths import MemoryPathError

pytestmark = pytest.mark.anyio


async def _no_wait(_: float) -> None:
    return None


NO_WAIT = RetryPolicy(sleep=_no_wait)

Hook = Callable[[BackendOperation, str], Awaitable[None]]


def rival(act: Hook) -> Hook:
    """A before_operation hook acting as a rival writer of the same backend: its own calls to
    the backend run the hook again, which then does nothing."""
    acting = False

    async def hook(operation: BackendOperation, path: str) -> None:
        nonlocal acting
        if acting:
            return
        acting = True
        try:
            await act(operation, path)
        finally:
            acting = False

    return hook


async def test_a_session_of_sdk_commands_end_to_end() -> None:
    backend = InMemoryBackend()
    memory = MemoryEngine(backend)
    assert await memory.view(
        BetaMemoryTool20250818ViewCommand(command="view", path="/memories")
    ) == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
        "items and node_modules:\n0B\t/memories"
    )
    await memory.create(
        BetaMemoryTool20250818CreateCommand(
            command="create", path="/memories/acme.md", file_text="- email\n"
        )
    )
    await memory.insert(
        BetaMemoryTool20250818InsertCommand(
            command="insert", path="/memories/acme.md", insert_line=1, insert_text="- mornings\n"
        )
    )
    await memory.str_replace(
        BetaMemoryTool20250818StrReplaceCommand(
            command="str_replace",
            path="/memories/acme.md",
            old_str="email",
            new_str="email, never phone",
        )
    )
    await memory.rename(
        BetaMemoryTool20250818RenameCommand(
            command="rename", old_path="/memories/acme.md", new_path="/memories/clients/acme.md"
        )
    )
    assert await memory.view(
        BetaMemoryTool20250818ViewCommand(command="view", path="/memories/clients/acme.md")
    ) == (
        "Here's the content of /memories/clients/acme.md with line numbers:\n"
        "     1\t- email, never phone\n     2\t- mornings"
    )
    deleted = await memory.delete(
        BetaMemoryTool20250818DeleteCommand(command="delete", path="/memories/clients")
    )
    assert deleted == "Successfully deleted /memories/clients"
    assert backend.snapshot() == {}


async def test_execute_refuses_what_is_not_a_command() -> None:
    memory = MemoryEngine(InMemoryBackend(files={"/memories/a": "x\n"}))
    assert "     1\tx" in await memory.execute({"command": "view", "path": "/memories/a"})
    for value in (None, "view", ["view"], 42):
        with pytest.raises(MemoryToolError) as caught:
            await memory.execute(value)
        assert caught.value.code == "invalid_command"
        assert str(caught.value).startswith("Invalid memory command: expected an object")
    with pytest.raises(MemoryToolError, match=r"got null\.$"):
        await memory.view(None)


async def test_an_absent_field_and_a_null_one_are_named_differently() -> None:
    memory = MemoryEngine(InMemoryBackend())
    with pytest.raises(MemoryToolError) as absent:
        await memory.execute({"command": "view"})
    assert str(absent.value) == "Missing required parameter `path` for the view command."
    with pytest.raises(MemoryToolError) as null:
        await memory.execute({"command": "view", "path": None})
    assert str(null.value) == "Invalid `path` parameter: expected a string, got null."


async def test_errors_are_the_sdks_tool_error_with_the_path_error_as_cause() -> None:
    memory = MemoryEngine(InMemoryBackend())
    with pytest.raises(ToolError) as caught:
        await memory.view({"command": "view", "path": "/memories/../x"})
    error = caught.value
    assert isinstance(error, MemoryToolError)
    assert error.code == "invalid_path"
    assert error.path_rule == "dot-segment"
    assert isinstance(error.__cause__, MemoryPathError)
    assert error.content == str(error)  # what the tool runner sends back to Claude


async def test_paths_and_sizes_are_checked_before_storage_is_touched() -> None:
    operations: list[str] = []

    async def record(operation: BackendOperation, _: str) -> None:
        operations.append(operation)

    memory = MemoryEngine(InMemoryBackend(before_operation=record))
    refused = [
        {"command": "create", "path": "/memories/.x", "file_text": "a"},
        {"command": "rename", "old_path": "/memories/a", "new_path": "/x"},
        {"command": "view", "path": "/memories/a", "view_range": [1]},
        {"command": "create", "path": "/memories/a", "file_text": "x" * 40_000},
    ]
    for command in refused:
        with pytest.raises(MemoryToolError):
            await memory.execute(command)
    assert operations == []


async def test_the_default_size_limit_counts_utf8_bytes_at_the_limit_and_one_over() -> None:
    backend = InMemoryBackend()
    memory = MemoryEngine(backend)
    assert memory.max_file_bytes == DEFAULT_MAX_FILE_BYTES == 32_768
    text = "€" * 10_922 + "aa"  # 32 766 + 2 bytes, 10 924 code points
    await memory.execute({"command": "create", "path": "/memories/full.md", "file_text": text})
    with pytest.raises(MemoryToolError) as caught:
        await memory.execute(
            {"command": "create", "path": "/memories/over.md", "file_text": "a" * 32_769}
        )
    assert caught.value.code == "too_large"
    assert str(caught.value) == (
        "Cannot write /memories/over.md: the new content would be 32769 bytes, over the "
        "32768-byte limit for a memory file. Split the content across several smaller files."
    )
    assert list(backend.snapshot()) == ["/memories/full.md"]


async def test_the_option_can_only_lower_the_backends_limit() -> None:
    assert MemoryEngine(InMemoryBackend(max_file_bytes=100)).max_file_bytes == 100
    assert MemoryEngine(InMemoryBackend(max_file_bytes=100), max_file_bytes=50).max_file_bytes == 50
    assert (
        MemoryEngine(InMemoryBackend(max_file_bytes=100), max_file_bytes=500).max_file_bytes == 100
    )
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="must be a positive integer"):
            MemoryEngine(InMemoryBackend(), max_file_bytes=bad)


async def test_gives_up_after_25_lost_races_without_writing() -> None:
    races = 0

    async def act(operation: BackendOperation, _: str) -> None:
        nonlocal races
        if operation != "update":
            return
        races += 1
        file = await backend.read("/memories/hot.md")
        assert file is not None
        await backend.update("/memories/hot.md", f"{file.content}rival {races}\n", file.version)

    backend = InMemoryBackend(files={"/memories/hot.md": "count: 0\n"}, before_operation=rival(act))
    memory = MemoryEngine(backend, retry=NO_WAIT)
    with pytest.raises(MemoryToolError) as caught:
        await memory.execute(
            {"command": "insert", "path": "/memories/hot.md", "insert_line": 0, "insert_text": "x"}
        )
    assert caught.value.code == "conflict"
    assert str(caught.value) == (
        "Could not change /memories/hot.md: other writers changed it at the same time, and all "
        "25 attempts to apply this change lost the race. Nothing was changed; view it and try "
        "again."
    )
    assert races == 25
    content = backend.snapshot()["/memories/hot.md"]
    assert len(content.split("\n")) == 1 + 25 + 1
    assert "x" not in content.split("\n")


async def test_the_backoff_is_full_jitter_doubling_from_2_to_200_ms() -> None:
    waits: list[float] = []

    async def sleep(ms: float) -> None:
        waits.append(ms)

    policy = RetryPolicy(random=lambda: 0.5, sleep=sleep)
    backend = InMemoryBackend(files={"/memories/a": "a"})

    async def always_conflict(operation: BackendOperation, path: str) -> None:
        if operation == "update":
            file = await backend.read(path)
            assert file is not None
            await backend.update(path, file.content, file.version)

    backend = InMemoryBackend(files={"/memories/a": "a"}, before_operation=rival(always_conflict))
    with pytest.raises(MemoryToolError):
        await MemoryEngine(backend, retry=policy).execute(
            {"command": "str_replace", "path": "/memories/a", "old_str": "a", "new_str": "b"}
        )
    ceilings = [min(200, 2 * 2**n) for n in range(24)]
    assert waits == [0.5 * c for c in ceilings]


async def test_sixteen_writers_racing_on_one_file_lose_no_update() -> None:
    writers, edits, path = 16, 20, "/memories/shared.md"
    counters = [f"writer {w}: 0" for w in range(writers)]
    updates = 0
    rng = random.Random(7)

    async def jitter(operation: BackendOperation, _: str) -> None:
        nonlocal updates
        if operation == "update":
            updates += 1
        roll = rng.random()
        if roll < 0.2:
            return
        await anyio.sleep(0 if roll < 0.5 else rng.random() / 500)

    backend = InMemoryBackend(files={path: "\n".join(counters) + "\n"}, before_operation=jitter)

    async def writer(w: int) -> None:
        memory = MemoryEngine(backend)  # one engine per writer, as separate processes have
        for e in range(edits):
            if e % 2 == 0:
                await memory.execute(
                    {
                        "command": "insert",
                        "path": path,
                        "insert_line": (w * 7 + e) % writers,
                        "insert_text": f"note from writer {w}, edit {e}\n",
                    }
                )
            else:
                done = (e - 1) // 2
                await memory.execute(
                    {
                        "command": "str_replace",
                        "path": path,
                        "old_str": f"writer {w}: {done}\n",
                        "new_str": f"writer {w}: {done + 1}\n",
                    }
                )

    async with anyio.create_task_group() as group:
        for w in range(writers):
            group.start_soon(writer, w)

    lines = backend.snapshot()[path].split("\n")
    assert lines.pop() == ""
    assert len(lines) == writers + writers * edits // 2
    for w in range(writers):
        assert lines.count(f"writer {w}: {edits // 2}") == 1
        for e in range(0, edits, 2):
            assert f"note from writer {w}, edit {e}" in lines
    assert updates > writers * edits * 1.5  # the writers really raced


async def test_a_rename_fallback_undoes_its_copies_when_a_copy_fails() -> None:
    creates = 0

    def fail_third_create(operation: BackendOperation, _: str) -> None:
        nonlocal creates
        if operation == "create":
            creates += 1
            if creates == 3:
                raise OSError("disk full")

    files = {"/memories/d/a": "1", "/memories/d/b": "2", "/memories/d/c": "3"}
    backend = InMemoryBackend(files=files, tree=False, before_operation=fail_third_create)
    with pytest.raises(OSError, match="disk full"):
        await MemoryEngine(backend).execute(
            {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"}
        )
    assert backend.snapshot() == files


async def test_a_rename_fallback_leaves_in_place_a_file_that_keeps_changing() -> None:
    edits = 0

    async def edit_hot(operation: BackendOperation, path: str) -> None:
        nonlocal edits
        if operation != "delete" or path != "/memories/d/hot":
            return
        file = await backend.read(path)
        if file is not None:
            edits += 1
            await backend.update(path, str(edits), file.version)

    backend = InMemoryBackend(
        files={"/memories/d/a": "a", "/memories/d/hot": "0", "/memories/d/z": "z"},
        tree=False,
        before_operation=rival(edit_hot),
    )
    with pytest.raises(MemoryToolError) as caught:
        await MemoryEngine(backend, retry=NO_WAIT).execute(
            {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"}
        )
    assert str(caught.value) == (
        "Renamed /memories/d to /memories/e except 1 file that other writers kept changing, "
        "left in place: /memories/d/hot. View and rename it again."
    )
    assert backend.snapshot() == {
        "/memories/d/hot": "25",
        "/memories/e/a": "a",
        "/memories/e/z": "z",
    }


async def _race_a_file_and_a_directory_of_one_name(tree: bool) -> tuple[list[object], list[str]]:
    """Two engines create /memories/a and /memories/a/b.md at once over one backend that
    yields before every operation, so each engine's checks run before either create."""

    async def yield_first(_: BackendOperation, __: str) -> None:
        await anyio.lowlevel.checkpoint()

    backend = InMemoryBackend(tree=tree, before_operation=yield_first)
    results: list[object] = [None, None]

    async def create(index: int, path: str) -> None:
        command = {"command": "create", "path": path, "file_text": "x"}
        try:
            results[index] = await MemoryEngine(backend).execute(command)
        except MemoryToolError as error:
            results[index] = error

    async with anyio.create_task_group() as group:
        group.start_soon(create, 0, "/memories/a")
        group.start_soon(create, 1, "/memories/a/b.md")
    return results, list(backend.snapshot())


async def test_a_backend_keeping_the_tree_never_lets_a_file_and_a_directory_of_one_name_in() -> (
    None
):
    _, unchecked = await _race_a_file_and_a_directory_of_one_name(tree=False)
    assert unchecked == ["/memories/a", "/memories/a/b.md"]  # the race the tree rule closes

    results, files = await _race_a_file_and_a_directory_of_one_name(tree=True)
    assert len(files) == 1
    refused = next(r for r in results if isinstance(r, MemoryToolError))
    if files == ["/memories/a"]:
        assert (refused.code, refused.message) == (
            "not_a_directory",
            "Cannot create /memories/a/b.md because /memories/a is a file, not a directory. "
            "Choose a path that is not inside /memories/a.",
        )
    else:
        assert (refused.code, refused.message) == (
            "is_a_directory",
            "Cannot create /memories/a because it is a directory. Create a file inside it "
            "instead (a path starting with /memories/a/).",
        )


async def test_a_delete_and_re_create_between_a_read_and_a_write_is_not_overwritten() -> None:
    replaced = False

    async def replace(operation: BackendOperation, _: str) -> None:
        nonlocal replaced
        if operation != "update" or replaced:
            return
        replaced = True
        await backend.delete("/memories/a.md")
        await backend.create("/memories/a.md", "two\n")

    backend = InMemoryBackend(files={"/memories/a.md": "one\n"}, before_operation=rival(replace))
    with pytest.raises(MemoryToolError) as caught:
        await MemoryEngine(backend, retry=NO_WAIT).execute(
            {"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "1"}
        )
    # The retry re-read the new file, which has no "one" in it: nothing was overwritten.
    assert caught.value.code == "no_match"
    assert backend.snapshot() == {"/memories/a.md": "two\n"}


class UnnamedFile(InMemoryBackend):
    """Refuses a create under a file without naming the file."""

    async def create(self, path: str, content: str) -> MemoryVersion:
        try:
            return await super().create(path, content)
        except MemoryBackendError as error:
            raise MemoryBackendError(error.code, error.path) from None


async def test_the_engine_names_the_blocking_file_when_the_backend_does_not() -> None:
    memory = MemoryEngine(UnnamedFile(files={"/memories/f": "x"}))
    with pytest.raises(MemoryToolError) as caught:
        await memory.execute({"command": "create", "path": "/memories/f/g/h.md", "file_text": "y"})
    assert caught.value.message == (
        "Cannot create /memories/f/g/h.md because /memories/f is a file, not a directory. "
        "Choose a path that is not inside /memories/f."
    )


async def test_an_invalid_key_the_path_rules_do_not_explain_is_passed_on() -> None:
    backend = InMemoryBackend(files={"/memories/a": "x"})
    odd = MemoryBackendError(
        "INVALID_KEY", "/memories/a", "INVALID_KEY: too odd", key="/memories/b"
    )

    class OddTree:
        async def delete_tree(self, path: str) -> int:
            raise AssertionError("not called")

        async def move_tree(self, source: str, destination: str) -> int:
            raise odd

    backend.tree = OddTree()
    with pytest.raises(MemoryBackendError) as caught:
        await MemoryEngine(backend).execute(
            {"command": "rename", "old_path": "/memories/a", "new_path": "/memories/b"}
        )
    assert caught.value is odd


async def test_following_the_truncation_notes_shows_every_line_once() -> None:
    text = "".join(f"line {n} " + "x" * (n % 37) + "\n" for n in range(1, 3001))
    memory = MemoryEngine(InMemoryBackend(files={"/memories/long.md": text}))
    seen: list[str] = []
    command: dict[str, object] = {"command": "view", "path": "/memories/long.md"}
    pages = 0
    while True:
        out = await memory.execute(command)
        pages += 1
        rows = out.split("\n")[1:]
        note = rows[-1] if rows[-1].startswith("[Output truncated") else None
        body = rows[:-1] if note else rows
        assert sum(len(row) for row in body) + len(body) - 1 <= 16_000
        seen.extend(row.split("\t", 1)[1] for row in body)
        if note is None:
            break
        start = int(note.split("view_range [")[1].split(",")[0])
        assert note.endswith(f"view_range [{start}, -1].]")
        command = {"command": "view", "path": "/memories/long.md", "view_range": [start, -1]}
    assert pages > 3
    assert seen == text.split("\n")[:-1]


# ----- edits of a file the engine has just read or written

NOTES = "/memories/notes.md"


def counted(files: dict[str, str]) -> tuple[InMemoryBackend, list[str], MemoryEngine]:
    calls: list[str] = []

    async def record(operation: BackendOperation, _: str) -> None:
        calls.append(operation)

    backend = InMemoryBackend(files=files, before_operation=record)
    return backend, calls, MemoryEngine(backend, retry=NO_WAIT)


def replace(old: str, new: str, path: str = NOTES) -> dict[str, object]:
    return {"command": "str_replace", "path": path, "old_str": old, "new_str": new}


async def test_after_a_view_or_a_write_an_edit_skips_the_read() -> None:
    _, calls, memory = counted({NOTES: "a\nb\n"})
    await memory.view({"command": "view", "path": NOTES})
    calls.clear()
    await memory.str_replace(replace("a", "A"))
    await memory.insert({"command": "insert", "path": NOTES, "insert_line": 2, "insert_text": "c"})
    assert calls == ["update", "update"]
    await memory.create({"command": "create", "path": "/memories/new.md", "file_text": "x\n"})
    calls.clear()
    await memory.str_replace(replace("x", "y", "/memories/new.md"))
    assert calls == ["update"]


async def test_an_edit_applies_to_the_current_text_when_another_writer_changed_it() -> None:
    backend, calls, memory = counted({NOTES: "one\n"})
    await memory.view({"command": "view", "path": NOTES})
    await MemoryEngine(backend).insert(
        {"command": "insert", "path": NOTES, "insert_line": 1, "insert_text": "two"}
    )
    calls.clear()
    result = await memory.insert(
        {"command": "insert", "path": NOTES, "insert_line": 0, "insert_text": "zero"}
    )
    assert result == f"The file {NOTES} has been edited."
    # The remembered version lost; the edit read the file and applied to what it holds now.
    assert calls == ["update", "read", "update"]
    assert backend.snapshot()[NOTES] == "zero\none\ntwo\n"


async def test_a_refusal_is_judged_on_the_current_text_not_the_remembered_one() -> None:
    backend, _, memory = counted({NOTES: "old\n"})
    await memory.view({"command": "view", "path": NOTES})
    await MemoryEngine(backend).str_replace(replace("old", "new"))
    await memory.str_replace(replace("new", "newer"))  # not in the remembered text
    assert backend.snapshot()[NOTES] == "newer\n"
    with pytest.raises(MemoryToolError) as refused:
        await memory.str_replace(replace("old", "x"))
    assert refused.value.message == (
        f"No replacement was performed, old_str `old` did not appear verbatim in {NOTES}."
    )


async def test_an_edit_never_writes_over_a_file_deleted_and_created_again_since() -> None:
    backend, _, memory = counted({NOTES: "first life\n"})
    await memory.view({"command": "view", "path": NOTES})
    other = MemoryEngine(backend)
    await other.delete({"command": "delete", "path": NOTES})
    await other.create({"command": "create", "path": NOTES, "file_text": "second life\n"})
    await memory.str_replace(replace("life", "LIFE"))
    assert backend.snapshot()[NOTES] == "second LIFE\n"


async def test_a_delete_or_rename_above_a_file_forgets_it() -> None:
    _, calls, memory = counted({"/memories/d/a.md": "a\n"})
    await memory.view({"command": "view", "path": "/memories/d/a.md"})
    await memory.rename({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"})
    await memory.create({"command": "create", "path": "/memories/d/a.md", "file_text": "a\n"})
    await memory.delete({"command": "delete", "path": "/memories/d"})
    calls.clear()
    with pytest.raises(MemoryToolError) as refused:
        await memory.str_replace(replace("a", "b", "/memories/d/a.md"))
    assert refused.value.code == "not_found"
    assert calls[0] == "read"


async def test_an_old_str_over_200_code_points_is_cut_in_a_no_match_message() -> None:
    engine = MemoryEngine(InMemoryBackend(files={"/memories/a.md": "x\n"}))
    # 5 MiB of old_str, starting with a code point outside the BMP.
    old_str = "😀" + "y" * (5 * 1024 * 1024)
    with pytest.raises(MemoryToolError) as caught:
        await engine.execute(
            {"command": "str_replace", "path": "/memories/a.md", "old_str": old_str}
        )
    assert caught.value.code == "no_match"
    more = 5 * 1024 * 1024 - 199
    assert str(caught.value) == (
        f"No replacement was performed, old_str `😀{'y' * 199}… ({more} more characters)` "
        "did not appear verbatim in /memories/a.md."
    )


async def test_an_old_str_of_200_code_points_is_shown_whole_and_one_of_201_is_cut() -> None:
    text = "q" * 201 + "\n" + "q" * 201 + "\n"
    engine = MemoryEngine(InMemoryBackend(files={"/memories/a.md": text}))
    cut = "q" * 200 + "… (1 more characters)"
    for old_str, shown in [("q" * 200, "q" * 200), ("q" * 201, cut)]:
        with pytest.raises(MemoryToolError) as caught:
            await engine.execute(
                {"command": "str_replace", "path": "/memories/a.md", "old_str": old_str}
            )
        assert caught.value.code == "multiple_matches"
        assert f"old_str `{shown}` in lines: 1" in str(caught.value)
