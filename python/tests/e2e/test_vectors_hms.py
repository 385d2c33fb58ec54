"""Every case of the shared vectors against a real hms-mcp process, driven the way the SDK
drives the tool: well-formed commands as the SDK's own BetaMemoryTool20250818*Command models
through the tool's command methods, malformed ones as raw JSON through call(). hms-mcp offers
the tree operations, so each create, delete and rename is one call; the engine's own checks
and its copy-then-delete path run the same vectors over the in-memory backend without them
(tests/test_vectors_in_memory.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hms_memory_tool import HolographicMemoryTool, MemoryToolError
from hms_memory_tool.hms_backend import HmsMemoryBackend
from tests.support.store_files import seed_files
from tests.support.vectors import Outcome, check_outcome, load_vectors, sdk_command

from .conftest import SharedHms

CASES = load_vectors()


async def run_case(
    case: dict[str, Any], backend: HmsMemoryBackend, data_dir: Path, namespace: str
) -> Outcome:
    # A case may start from a file and a directory of one name, which the server refuses to
    # create: that file is written into the store directly.
    await seed_files(data_dir, namespace, backend, case["files"])
    options = case.get("options", {})
    memory = HolographicMemoryTool(
        backend,
        max_view_chars=options.get("max_view_chars"),
        max_file_bytes=options.get("max_file_bytes"),
    )
    outcome = Outcome()
    typed = sdk_command(case["command"])
    try:
        if typed is None:
            outcome.output = await memory.call(case["command"])
        else:
            outcome.output = await getattr(memory, case["command"]["command"])(typed)
    except MemoryToolError as error:
        outcome.error = str(error)
        outcome.error_code = error.code
    for entry in await backend.list("/memories/"):
        file = await backend.read(entry.path)
        if file is not None:
            outcome.files_after[entry.path] = file.content
    return outcome


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CASES)), ids=[case["name"] for case in CASES]
)
def test_vector_against_hms_mcp(index: int, case: dict[str, Any], shared_hms: SharedHms) -> None:
    namespace = f"vector-{index}"
    backend = shared_hms.backend.for_namespace(namespace)
    outcome = shared_hms.loop.run(run_case(case, backend, shared_hms.data_dir, namespace))
    check_outcome(case, outcome)
