"""Every case of the shared vectors through the Python engine over the in-memory backend, with
and without the optional atomic operations."""

from __future__ import annotations

from typing import Any

import pytest

from hms_memory_tool.core import InMemoryBackend

from .vectors import check_outcome, load_vectors, run_vector

CASES = load_vectors()


def test_the_vectors_file_holds_every_case() -> None:
    assert len(CASES) >= 156
    names = [case["name"] for case in CASES]
    assert len(set(names)) == len(names)


@pytest.mark.anyio
@pytest.mark.parametrize("atomic", [True, False], ids=["atomic", "fallbacks"])
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
async def test_vector(case: dict[str, Any], atomic: bool) -> None:
    backend = InMemoryBackend(atomic_operations=atomic)
    check_outcome(case, await run_vector(case, backend))
