"""The MemoryBackend contract, as checks any backend must pass: the Python mirror of
``@hms/memory-core/testing``'s ``runBackendConformance``, case for case.

Each check takes a fresh, empty backend. :func:`checks_for` gives the checks for a backend
that declares the tree capability (``backend.tree``) or not, as the TypeScript suite's
``tree`` option: the :data:`CHECKS` of every backend, one that the backend declares the
capability as said, and the :data:`TREE_CHECKS` for one that does.
``tests/test_backend_conformance.py`` runs them against the in-memory backend with and without
the tree operations (and shows they catch broken backends);
``tests/e2e/test_hms_conformance.py`` against a real hms-mcp.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import pytest

from hms_memory_tool.core import (
    MemoryBackend,
    MemoryBackendError,
    MemoryBackendErrorCode,
    MemoryVersion,
    TreeOperations,
)

Check = Callable[[MemoryBackend], Coroutine[Any, Any, None]]
TreeCheck = Callable[[MemoryBackend, TreeOperations], Coroutine[Any, Any, None]]
#: The checks every backend must pass (TypeScript: the ``test(...)`` cases).
CHECKS: dict[str, Check] = {}
#: The checks of the tree capability (TypeScript: the ``treeTest(...)`` cases).
TREE_CHECKS: dict[str, TreeCheck] = {}


def check(function: Check) -> Check:
    """Registers a check under its name."""
    CHECKS[function.__name__] = function
    return function


def tree_check(function: TreeCheck) -> TreeCheck:
    """Registers a check of the tree capability under its name."""
    TREE_CHECKS[function.__name__] = function
    return function


def checks_for(*, tree: bool) -> dict[str, Check]:
    """Every check for a backend that declares the tree capability (``tree``) or not."""

    async def declares_the_tree_capability(b: MemoryBackend) -> None:
        assert (b.tree is not None) == tree, f"the backend should declare tree: {tree}"

    def on_tree(body: TreeCheck) -> Check:
        async def run(b: MemoryBackend) -> None:
            assert b.tree is not None, "the backend declares tree"
            await body(b, b.tree)

        return run

    checks = {**CHECKS, f"declares_the_tree_capability_{tree}": declares_the_tree_capability}
    if tree:
        checks.update({name: on_tree(body) for name, body in TREE_CHECKS.items()})
    return checks


async def rejects_with(
    operation: Awaitable[object], code: MemoryBackendErrorCode, what: str
) -> MemoryBackendError:
    """Awaits ``operation`` and returns the MemoryBackendError with ``code`` it raised."""
    with pytest.raises(MemoryBackendError) as caught:
        await operation
    assert caught.value.code == code, f"{what}: expected {code}, got {caught.value}"
    return caught.value


async def paths(backend: MemoryBackend, prefix: str = "/memories/") -> list[str]:
    return [entry.path for entry in await backend.list(prefix)]


async def content(backend: MemoryBackend, path: str) -> str | None:
    file = await backend.read(path)
    return None if file is None else file.content


# ----- reads, creates, updates, deletes


@check
async def read_of_a_missing_file_returns_none(b: MemoryBackend) -> None:
    assert await b.read("/memories/missing.md") is None


@check
async def create_stores_a_file_that_read_returns_with_its_version(b: MemoryBackend) -> None:
    version = await b.create("/memories/a.md", "hello\n")
    file = await b.read("/memories/a.md")
    assert file is not None
    assert (file.content, file.version) == ("hello\n", version)


@check
async def create_refuses_an_existing_path_with_exists(b: MemoryBackend) -> None:
    await b.create("/memories/a.md", "first")
    await rejects_with(b.create("/memories/a.md", "second"), "EXISTS", "second create")
    assert await content(b, "/memories/a.md") == "first"


@check
async def text_round_trips_exactly(b: MemoryBackend) -> None:
    texts = [
        "",
        "\n",
        "no final newline",
        "crlf\r\nlines\r\n",
        "emoji 😀 and é € 日本",
        "$& $1 $$ \\n %2e",
        " leading and trailing spaces ",
        "\u0000\u0001 control and \u202e bidi in content are allowed",
    ]
    for i, text in enumerate(texts):
        await b.create(f"/memories/t{i}", text)
        assert await content(b, f"/memories/t{i}") == text


@check
async def update_with_the_current_version_replaces_the_text(b: MemoryBackend) -> None:
    v1 = await b.create("/memories/a.md", "one")
    v2 = await b.update("/memories/a.md", "two", v1)
    assert v2 != v1
    file = await b.read("/memories/a.md")
    assert file is not None
    assert (file.content, file.version) == ("two", v2)
    v3 = await b.update("/memories/a.md", "two", v2)
    assert v3 not in (v1, v2), "an update to the same text still makes a new version"


@check
async def update_with_a_stale_version_fails_with_version_conflict(b: MemoryBackend) -> None:
    v1 = await b.create("/memories/a.md", "one")
    await b.update("/memories/a.md", "two", v1)
    await rejects_with(b.update("/memories/a.md", "three", v1), "VERSION_CONFLICT", "stale")
    assert await content(b, "/memories/a.md") == "two"


@check
async def update_of_a_missing_file_fails_with_not_found(b: MemoryBackend) -> None:
    v1 = await b.create("/memories/a.md", "one")
    await b.delete("/memories/a.md")
    await rejects_with(b.update("/memories/a.md", "two", v1), "NOT_FOUND", "update of deleted")
    assert await b.read("/memories/a.md") is None, "an update must not recreate the file"


@check
async def a_version_is_never_reused_after_a_delete_and_a_re_create(b: MemoryBackend) -> None:
    first = await b.create("/memories/a.md", "first life")
    await b.delete("/memories/a.md")
    second = await b.create("/memories/a.md", "second life")
    assert second != first, "a re-created file must not get its old version back"
    await rejects_with(
        b.update("/memories/a.md", "stale write", first), "VERSION_CONFLICT", "stale update"
    )
    await rejects_with(b.delete("/memories/a.md", first), "VERSION_CONFLICT", "stale delete")
    assert await content(b, "/memories/a.md") == "second life"


@check
async def delete_removes_a_file_and_a_missing_file_is_not_found(b: MemoryBackend) -> None:
    await b.create("/memories/a.md", "x")
    await b.delete("/memories/a.md")
    assert await b.read("/memories/a.md") is None
    await rejects_with(b.delete("/memories/a.md"), "NOT_FOUND", "second delete")


@check
async def delete_with_an_expected_version_is_a_compare_and_set(b: MemoryBackend) -> None:
    v1 = await b.create("/memories/a.md", "one")
    v2 = await b.update("/memories/a.md", "two", v1)
    await rejects_with(b.delete("/memories/a.md", v1), "VERSION_CONFLICT", "stale delete")
    assert await content(b, "/memories/a.md") == "two"
    await b.delete("/memories/a.md", v2)
    assert await b.read("/memories/a.md") is None


# ----- listing


@check
async def list_returns_every_file_under_a_prefix_recursively(b: MemoryBackend) -> None:
    files = {
        "/memories/a/x.md": "x",
        "/memories/a/deep/er/y.md": "é€😀",  # 9 bytes
        "/memories/ab.md": "ab",  # shares the string prefix "/memories/a", not the directory
        "/memories/b.md": "",
    }
    versions: dict[str, MemoryVersion] = {}
    for path, text in files.items():
        versions[path] = await b.create(path, text)
    assert [(e.path, e.bytes, e.version) for e in await b.list("/memories/a/")] == [
        ("/memories/a/deep/er/y.md", 9, versions["/memories/a/deep/er/y.md"]),
        ("/memories/a/x.md", 1, versions["/memories/a/x.md"]),
    ]
    assert await paths(b) == [
        "/memories/a/deep/er/y.md",
        "/memories/a/x.md",
        "/memories/ab.md",
        "/memories/b.md",
    ]
    assert list(await b.list("/memories/none/")) == []


@check
async def list_orders_keys_by_code_point(b: MemoryBackend) -> None:
    names = ["\ufa0e", "😀", "z", "\ue000", "é", "Z", "a b", "a-b", "a"]
    for name in names:
        await b.create(f"/memories/{name}", name)
    expected = sorted(names, key=lambda n: n.encode("utf-8"))
    assert await paths(b) == [f"/memories/{n}" for n in expected]


@check
async def list_with_a_limit_returns_the_first_entries(b: MemoryBackend) -> None:
    for name in ["c", "a", "b", "d"]:
        await b.create(f"/memories/d/{name}", name)
    assert [e.path for e in await b.list("/memories/d/", 1)] == ["/memories/d/a"]
    assert [e.path for e in await b.list("/memories/d/", 3)] == [
        "/memories/d/a",
        "/memories/d/b",
        "/memories/d/c",
    ]


# ----- the size limit


@check
async def the_size_limit_if_declared_admits_exactly_the_limit(b: MemoryBackend) -> None:
    limit = getattr(b, "max_file_bytes", None)
    if limit is None:
        return  # nothing declared: nothing to hold the backend to
    at_limit = "é" * (limit // 2) + ("a" if limit % 2 else "")
    over = at_limit + "a"
    v1 = await b.create("/memories/limit.md", at_limit)
    assert await content(b, "/memories/limit.md") == at_limit
    await rejects_with(b.create("/memories/over.md", over), "TOO_LARGE", "create over limit")
    assert await b.read("/memories/over.md") is None
    await rejects_with(b.update("/memories/limit.md", over, v1), "TOO_LARGE", "update over")
    assert await content(b, "/memories/limit.md") == at_limit


# ----- races


async def settle(*operations: Callable[[], Awaitable[object]]) -> list[object]:
    """Runs the operations concurrently; each result or the exception it raised, in order."""
    results: list[object] = [None] * len(operations)

    async def run(index: int, operation: Callable[[], Awaitable[object]]) -> None:
        try:
            results[index] = await operation()
        except Exception as error:  # collected, judged by the caller
            results[index] = error

    async with anyio.create_task_group() as group:
        for index, operation in enumerate(operations):
            group.start_soon(run, index, operation)
    return results


@check
async def concurrent_creates_of_one_path_exactly_one_wins(b: MemoryBackend) -> None:
    results = await settle(
        *(lambda i=i: b.create("/memories/race.md", f"writer {i}") for i in range(8))
    )
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(losers) == 7
    assert all(isinstance(r, MemoryBackendError) and r.code == "EXISTS" for r in losers)


@check
async def concurrent_updates_from_one_version_exactly_one_wins(b: MemoryBackend) -> None:
    v1 = await b.create("/memories/race.md", "start")
    results = await settle(
        *(lambda i=i: b.update("/memories/race.md", f"writer {i}", v1) for i in range(8))
    )
    winners = [i for i, r in enumerate(results) if not isinstance(r, Exception)]
    assert len(winners) == 1
    assert await content(b, "/memories/race.md") == f"writer {winners[0]}"
    for r in results:
        if isinstance(r, Exception):
            assert isinstance(r, MemoryBackendError)
            assert r.code == "VERSION_CONFLICT"


# ----- the tree operations


@tree_check
async def a_tree_move_gives_a_new_version(b: MemoryBackend, tree: TreeOperations) -> None:
    first = await b.create("/memories/a.md", "text")
    await tree.move_tree("/memories/a.md", "/memories/b.md")
    await tree.move_tree("/memories/b.md", "/memories/a.md")
    await rejects_with(
        b.update("/memories/a.md", "stale write", first), "VERSION_CONFLICT", "after two moves"
    )
    assert await content(b, "/memories/a.md") == "text"


@tree_check
async def create_refuses_a_directory_and_a_path_under_a_file(
    b: MemoryBackend, _: TreeOperations
) -> None:
    await b.create("/memories/d/x.md", "x")
    await b.create("/memories/f.md", "f")
    directory = await rejects_with(b.create("/memories/d", "d"), "IS_DIRECTORY", "a directory")
    assert directory.path == "/memories/d"
    under = await rejects_with(b.create("/memories/f.md/g/h.md", "h"), "UNDER_FILE", "under")
    assert (under.path, under.file) == ("/memories/f.md/g/h.md", "/memories/f.md")
    await rejects_with(b.create("/memories/f.md", "again"), "EXISTS", "a file's path")
    assert await paths(b) == ["/memories/d/x.md", "/memories/f.md"]
    await b.create("/memories/d.md", "a sibling whose name only starts like the directory")
    await b.create("/memories/f.md2/x", "under a name that only starts like the file")


@tree_check
async def create_never_lets_a_file_and_a_directory_of_one_name_both_in(
    b: MemoryBackend, _: TreeOperations
) -> None:
    for round_ in range(8):
        base = f"/memories/race{round_}"

        async def create_file(base: str = base) -> MemoryVersion:
            return await b.create(base, "file")

        async def create_under(base: str = base) -> MemoryVersion:
            return await b.create(f"{base}/b.md", "under")

        file, under = await settle(create_file, create_under)
        won = [r for r in (file, under) if not isinstance(r, Exception)]
        assert len(won) == 1, f"round {round_}: {file!r}, {under!r}"
        if isinstance(file, Exception):
            assert isinstance(file, MemoryBackendError)
            assert file.code == "IS_DIRECTORY"
        if isinstance(under, Exception):
            assert isinstance(under, MemoryBackendError)
            assert under.code == "UNDER_FILE"


@tree_check
async def delete_tree_deletes_a_file_or_a_directory(b: MemoryBackend, tree: TreeOperations) -> None:
    delete_tree = tree.delete_tree
    for p in ["/memories/d/a", "/memories/d/e/f", "/memories/dd", "/memories/f.md"]:
        await b.create(p, p)
    assert await delete_tree("/memories/d") == 2
    assert await delete_tree("/memories/f.md") == 1
    assert await paths(b) == ["/memories/dd"]
    await rejects_with(delete_tree("/memories/d"), "NOT_FOUND", "a tree delete of nothing")
    assert await content(b, "/memories/dd") == "/memories/dd", "the prefixed file is kept"


@tree_check
async def move_tree_moves_a_file_or_a_directory(b: MemoryBackend, tree: TreeOperations) -> None:
    move_tree = tree.move_tree
    for p in ["/memories/s/a", "/memories/s/b/c", "/memories/s2", "/memories/f.md"]:
        await b.create(p, p)
    before = await b.read("/memories/s/b/c")
    assert await move_tree("/memories/s", "/memories/u/v") == 2
    assert await move_tree("/memories/f.md", "/memories/u/g.md") == 1
    assert await paths(b) == [
        "/memories/s2",
        "/memories/u/g.md",
        "/memories/u/v/a",
        "/memories/u/v/b/c",
    ]
    after = await b.read("/memories/u/v/b/c")
    assert after is not None
    assert before is not None
    assert after.content == "/memories/s/b/c"
    assert after.version != before.version, "a moved file gets a new version"
    await b.update("/memories/u/v/b/c", "edited", after.version)
    assert await content(b, "/memories/u/v/b/c") == "edited"


@tree_check
async def move_tree_refuses_in_the_contracts_order(b: MemoryBackend, tree: TreeOperations) -> None:
    move_tree = tree.move_tree
    files = [
        "/memories/d/a.md",
        "/memories/d/sub/\ufa0e",  # first in code point order, second in UTF-16 order
        "/memories/d/sub/😀",
        "/memories/e/x.md",
        "/memories/f.md",
        "/memories/g.md",
    ]
    for p in files:
        await b.create(p, p)
    # 1. nothing to move comes first, even onto itself
    await rejects_with(move_tree("/memories/none", "/memories/none"), "NOT_FOUND", "missing")
    await rejects_with(move_tree("/memories/d/a", "/memories/z"), "NOT_FOUND", "a name prefix")
    # 2. onto itself
    await rejects_with(move_tree("/memories/f.md", "/memories/f.md"), "EXISTS", "file on itself")
    await rejects_with(move_tree("/memories/d", "/memories/d"), "EXISTS", "directory on itself")
    # 3. a directory into itself, before the destination's existence
    await rejects_with(move_tree("/memories/d", "/memories/d/sub"), "INTO_ITSELF", "into itself")
    await rejects_with(move_tree("/memories/d", "/memories/d/new"), "INTO_ITSELF", "into itself")
    # 4. the destination exists, as a file or as a directory
    await rejects_with(move_tree("/memories/d", "/memories/f.md"), "EXISTS", "onto a file")
    await rejects_with(move_tree("/memories/g.md", "/memories/e"), "EXISTS", "onto a directory")
    # 5. the destination lies under a file (a file under itself included)
    under = await rejects_with(
        move_tree("/memories/d", "/memories/f.md/x/y"), "UNDER_FILE", "under a file"
    )
    assert under.file == "/memories/f.md"
    itself = await rejects_with(
        move_tree("/memories/g.md", "/memories/g.md/h.md"), "UNDER_FILE", "a file under itself"
    )
    assert itself.file == "/memories/g.md"
    # 6. a new path breaks a path rule: the files two levels below d are 17 levels deep at a
    # destination 15 levels deep; the first in code point order is named
    deep = "/memories/" + "/".join(f"l{i}" for i in range(15))
    invalid = await rejects_with(move_tree("/memories/d", deep), "INVALID_KEY", "too deep")
    assert invalid.key == f"{deep}/sub/\ufa0e"
    assert await paths(b) == files, "nothing changed by refused tree moves"
