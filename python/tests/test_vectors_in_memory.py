"""Every case of the shared vectors through the Python engine over the in-memory backend, with
the tree operations (one call per create, delete and rename) and without them (the engine's
own checks and its copy-then-delete path)."""

from __future__ import annotations

from typing import Any

import pytest

from hms_memory_tool.core import InMemoryBackend, MemoryBackend

from .support.vectors import SeedFiles, check_outcome, create_files, load_vectors, run_vector

CASES = load_vectors()


def test_the_vectors_file_holds_every_case() -> None:
    assert len(CASES) >= 162
    names = [case["name"] for case in CASES]
    assert len(set(names)) == len(names)


async def load_files(backend: MemoryBackend, files: dict[str, str]) -> None:
    """As given: with the tree operations, create refuses a file and a directory of one name,
    which a case may start from (as another program's writes could leave)."""
    assert isinstance(backend, InMemoryBackend)
    backend.load(files)


#: (whether the backend offers the tree operations, how the starting files are written)
CONFIGURATIONS: dict[str, tuple[bool, SeedFiles]] = {
    "tree": (True, load_files),
    "no-tree": (False, create_files),
}


@pytest.mark.anyio
@pytest.mark.parametrize("configuration", list(CONFIGURATIONS))
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_vector(case: dict[str, Any], configuration: str) -> None:
    tree, seed_files = CONFIGURATIONS[configuration]
    backend = InMemoryBackend(tree=tree)
    check_outcome(case, await run_vector(case, backend, seed_files))
