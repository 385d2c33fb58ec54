"""The backend contract (tests/backend_conformance.py) against every configuration of the
in-memory backend, and proof that the checks catch backends that break it."""

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
)

from .backend_conformance import CHECKS
from .vectors import REPO

pytestmark = pytest.mark.anyio

CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "tree": {},
    "older": {"tree_operations": False},
    "none": {"atomic_operations": False},
    "64-byte-limit": {"max_file_bytes": 64},
}


@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
@pytest.mark.parametrize("name", list(CHECKS))
async def test_in_memory_backend(name: str, configuration: str) -> None:
    options = CONFIGURATIONS[configuration]
    backend = InMemoryBackend(
        atomic_operations=options.get("atomic_operations", True),
        tree_operations=options.get("tree_operations", True),
        max_file_bytes=options.get("max_file_bytes"),
    )
    await CHECKS[name](backend)


async def failures_of(make: type[InMemoryBackend]) -> list[str]:
    failed: list[str] = []
    for name, run in CHECKS.items():
        try:
            await run(make())
        except (Exception, pytest.fail.Exception):  # any failure: an assertion, a refusal
            failed.append(name)
    return failed


class VersionsPerFile(InMemoryBackend):
    """Counts versions per file from 1 and forgets them on delete: the ABA hazard."""

    def __init__(self) -> None:
        super().__init__(atomic_operations=False)
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
        inner = self.move_tree
        assert inner is not None

        async def move_tree(source: str, destination: str) -> int:
            if await self.list(destination + "/", 1):
                raise MemoryBackendError("EXISTS", source)
            return await inner(source, destination)

        self.move_tree = move_tree


class ClaimsTheTreeRule(InMemoryBackend):
    """Says its create keeps the tree well formed, but its create makes no checks."""

    def __init__(self) -> None:
        super().__init__()
        self._plain = InMemoryBackend(tree_operations=False)

    async def create(self, path: str, content: str) -> MemoryVersion:
        return await self._plain.create(path, content)

    async def read(self, path: str) -> StoredFile | None:
        return await self._plain.read(path)

    async def list(self, prefix: str, limit: int | None = None) -> list[FileEntry]:
        return await self._plain.list(prefix, limit)


async def test_the_checks_catch_a_backend_that_reuses_versions() -> None:
    failed = await failures_of(VersionsPerFile)
    assert "a_version_is_never_reused_after_a_delete_and_a_re_create" in failed


async def test_the_checks_catch_a_tree_move_out_of_order() -> None:
    assert await failures_of(ChecksTheDestinationFirst) == [
        "move_tree_if_offered_refuses_in_the_contracts_order"
    ]


async def test_the_checks_catch_a_create_that_lets_a_file_and_a_directory_of_one_name_in() -> None:
    failed = await failures_of(ClaimsTheTreeRule)
    assert "create_if_the_tree_is_enforced_refuses_a_directory_and_under_a_file" in failed
    assert "create_if_the_tree_is_enforced_never_lets_both_in" in failed


def test_every_check_of_the_typescript_suite_is_here() -> None:
    # The two suites are kept case for case.
    typescript = REPO / "packages" / "memory-core" / "src" / "conformance.ts"
    assert len(CHECKS) == typescript.read_text(encoding="utf-8").count('\n    test("')


def test_the_backend_protocol_is_met_by_the_in_memory_backend() -> None:
    backend: MemoryBackend = InMemoryBackend()
    assert isinstance(backend, MemoryBackend)


def test_the_in_memory_backend_offers_each_kind_of_operation_only_when_asked() -> None:
    tree = InMemoryBackend()
    assert tree.enforces_tree
    assert tree.delete_tree is not None
    assert tree.move_tree is not None
    assert tree.move_prefix is not None
    older = InMemoryBackend(tree_operations=False)
    assert (older.enforces_tree, older.delete_tree, older.move_tree) == (False, None, None)
    assert older.move_prefix is not None
    plain = InMemoryBackend(atomic_operations=False)
    assert (plain.enforces_tree, plain.delete_tree, plain.move_tree, plain.move_prefix) == (
        False,
        None,
        None,
        None,
    )


async def test_load_stores_files_as_given_even_those_create_refuses() -> None:
    backend = InMemoryBackend()
    backend.load({"/memories/a": "file", "/memories/a/b": "under"})
    assert backend.snapshot() == {"/memories/a": "file", "/memories/a/b": "under"}
    with pytest.raises(MemoryBackendError) as caught:
        await backend.create("/memories/a/b/c", "x")
    assert (caught.value.code, caught.value.file) == ("UNDER_FILE", "/memories/a")
