"""The backend contract (tests/support/backend_conformance.py) against the in-memory backend,
with and without the tree operations and with a size limit, and proof that the checks catch
backends that break it."""

from __future__ import annotations

from typing import Any

import pytest

from hms_memory_tool.core import (
    FileEntry,
    InMemoryBackend,
    MemoryBackend,
    MemoryBackendError,
    MemoryVersion,
    StoredFile,
    TreeOperations,
)

from .support.backend_conformance import CHECKS, TREE_CHECKS, checks_for
from .support.servers import REPO

pytestmark = pytest.mark.anyio

CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "tree": {},
    "no-tree": {"tree": False},
    "64-byte-limit": {"max_file_bytes": 64},
}

SCENARIOS = [
    (configuration, name)
    for configuration, options in CONFIGURATIONS.items()
    for name in checks_for(tree=options.get("tree", True))
]


@pytest.mark.parametrize(
    ("configuration", "name"), SCENARIOS, ids=[f"{c}-{n}" for c, n in SCENARIOS]
)
async def test_in_memory_backend(configuration: str, name: str) -> None:
    options = CONFIGURATIONS[configuration]
    await checks_for(tree=options.get("tree", True))[name](InMemoryBackend(**options))


async def failures_of(make: type[InMemoryBackend], *, tree: bool = True) -> list[str]:
    failed: list[str] = []
    for name, run in checks_for(tree=tree).items():
        try:
            await run(make())
        except (Exception, pytest.fail.Exception):  # any failure: an assertion, a refusal
            failed.append(name)
    return failed


class VersionsPerFile(InMemoryBackend):
    """Counts versions per file from 1 and forgets them on delete: the ABA hazard."""

    def __init__(self) -> None:
        super().__init__(tree=False)
        self._mine: dict[str, int] = {}
        self._inner: dict[str, MemoryVersion] = {}

    async def create(self, path: str, content: str) -> MemoryVersion:
        self._inner[path] = await super().create(path, content)
        self._mine[path] = 1
        return 1

    async def update(self, path: str, content: str, expected_version: MemoryVersion) -> int:
        current = self._mine.get(path)
        if current is None:
            raise MemoryBackendError("NOT_FOUND", path)
        if current != expected_version:
            raise MemoryBackendError("VERSION_CONFLICT", path)
        self._inner[path] = await super().update(path, content, self._inner[path])
        self._mine[path] = current + 1
        return current + 1

    async def delete(self, path: str, expected_version: MemoryVersion | None = None) -> None:
        current = self._mine.get(path)
        if current is None:
            raise MemoryBackendError("NOT_FOUND", path)
        if expected_version is not None and current != expected_version:
            raise MemoryBackendError("VERSION_CONFLICT", path)
        await super().delete(path)
        del self._mine[path]


class ChecksTheDestinationFirst(InMemoryBackend):
    """A tree move that reports an existing destination before a move into itself."""

    def __init__(self) -> None:
        super().__init__()
        tree = self.tree
        assert tree is not None
        inner: TreeOperations = tree
        backend = self

        class Tree:
            async def delete_tree(self, path: str) -> int:
                return await inner.delete_tree(path)

            async def move_tree(self, source: str, destination: str) -> int:
                if await backend.list(destination + "/", 1):
                    raise MemoryBackendError("EXISTS", source)
                return await inner.move_tree(source, destination)

        self.tree = Tree()


class ClaimsTheTreeRule(InMemoryBackend):
    """Offers the tree operations, but its create makes no checks."""

    def __init__(self) -> None:
        super().__init__()
        self._plain = InMemoryBackend(tree=False)

    async def create(self, path: str, content: str) -> MemoryVersion:
        return await self._plain.create(path, content)

    async def read(self, path: str) -> StoredFile | None:
        return await self._plain.read(path)

    async def list(self, prefix: str, limit: int | None = None) -> list[FileEntry]:
        return await self._plain.list(prefix, limit)


async def test_the_checks_catch_a_backend_that_reuses_versions() -> None:
    failed = await failures_of(VersionsPerFile, tree=False)
    assert "a_version_is_never_reused_after_a_delete_and_a_re_create" in failed


async def test_the_checks_catch_a_tree_move_out_of_order() -> None:
    assert await failures_of(ChecksTheDestinationFirst) == [
        "move_tree_refuses_in_the_contracts_order"
    ]


async def test_the_checks_catch_a_create_that_lets_a_file_and_a_directory_of_one_name_in() -> None:
    failed = await failures_of(ClaimsTheTreeRule)
    assert "create_refuses_a_directory_and_a_path_under_a_file" in failed
    assert "create_never_lets_a_file_and_a_directory_of_one_name_both_in" in failed


async def test_the_checks_catch_a_backend_that_declares_the_tree_capability_wrongly() -> None:
    assert await failures_of(InMemoryBackend, tree=False) == ["declares_the_tree_capability_False"]


def test_every_check_of_the_typescript_suite_is_here() -> None:
    # The two suites are kept case for case: the checks of every backend, the check that the
    # tree capability is declared as said, and the checks of the tree capability.
    typescript = (REPO / "packages" / "memory-core" / "src" / "conformance.ts").read_text("utf-8")
    assert len(CHECKS) == typescript.count('\n    test("')
    assert typescript.count("\n    test(`declares the tree capability: ") == 1
    assert len(TREE_CHECKS) == typescript.count("\n      treeTest(")


def test_the_backend_protocol_is_met_by_the_in_memory_backend() -> None:
    backend: MemoryBackend = InMemoryBackend()
    assert isinstance(backend, MemoryBackend)


async def test_the_in_memory_backend_offers_the_tree_operations_only_when_asked() -> None:
    tree = InMemoryBackend(files={"/memories/a/b": "b"})
    assert tree.tree is not None
    with pytest.raises(MemoryBackendError) as refused:
        await tree.create("/memories/a", "a")  # the tree rule comes with the tree operations
    assert refused.value.code == "IS_DIRECTORY"
    plain = InMemoryBackend(tree=False, files={"/memories/a/b": "b"})
    assert plain.tree is None
    await plain.create("/memories/a", "a")  # no tree rule: the engine checks for itself
    assert plain.snapshot() == {"/memories/a": "a", "/memories/a/b": "b"}


async def test_load_stores_files_as_given_even_those_create_refuses() -> None:
    backend = InMemoryBackend()
    backend.load({"/memories/a": "file", "/memories/a/b": "under"})
    assert backend.snapshot() == {"/memories/a": "file", "/memories/a/b": "under"}
    with pytest.raises(MemoryBackendError) as caught:
        await backend.create("/memories/a/b/c", "x")
    assert (caught.value.code, caught.value.file) == ("UNDER_FILE", "/memories/a")
