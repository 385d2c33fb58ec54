"""Every case of the shared vectors against a real hms-mcp process, driven the way the SDK
drives the tool: well-formed commands as the SDK's own BetaMemoryTool20250818*Command models
through the tool's command methods, malformed ones as raw JSON through call(). Each case runs
with the server's tree capabilities (one call per create, delete and rename), with only the
older atomic operations, and with none (the engine's checks and copy-then-delete fallbacks):
the backend is told to offer less than the server has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pydantic
import pytest
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool import HolographicMemoryTool, MemoryToolError
from hms_memory_tool.hms_backend import HmsMcpBackend

from .conftest import SharedHms
from .support.legacy_store import seed_files_in
from .vectors import Outcome, check_outcome, load_vectors

CASES = load_vectors()

SDK_COMMANDS: dict[str, type[pydantic.BaseModel]] = {
    "view": BetaMemoryTool20250818ViewCommand,
    "create": BetaMemoryTool20250818CreateCommand,
    "str_replace": BetaMemoryTool20250818StrReplaceCommand,
    "insert": BetaMemoryTool20250818InsertCommand,
    "delete": BetaMemoryTool20250818DeleteCommand,
    "rename": BetaMemoryTool20250818RenameCommand,
}


def sdk_command(command: object) -> pydantic.BaseModel | None:
    """The command as the SDK's own model, when it is one (strictly: no coercion)."""
    if not isinstance(command, dict) or command.get("command") not in SDK_COMMANDS:
        return None
    model = SDK_COMMANDS[command["command"]]
    try:
        parsed = model.model_validate(command, strict=True)
    except pydantic.ValidationError:
        return None
    # Only if nothing was dropped or changed on the way in.
    if parsed.model_dump(exclude_unset=True) != command:
        return None
    return parsed


async def run_case(
    case: dict[str, Any], backend: HmsMcpBackend, data_dir: Path, namespace: str
) -> Outcome:
    # A case may start from a file and a directory of one name, which the server refuses to
    # create: that file is written into the store as a store from before the rule holds it.
    await seed_files_in(data_dir, namespace, backend, case["files"])
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


def offering(backend: HmsMcpBackend, configuration: str) -> HmsMcpBackend:
    """``backend`` offering only the capabilities of ``configuration``."""
    if configuration in ("older", "none"):
        backend.enforces_tree = False
        backend.delete_tree = backend.move_tree = None
    if configuration == "none":
        backend.delete_prefix = backend.move = backend.move_prefix = None
    return backend


def test_the_server_offers_every_capability(shared_hms: SharedHms) -> None:
    backend = shared_hms.backend
    assert backend.enforces_tree
    assert backend.delete_tree is not None
    assert backend.move_tree is not None
    assert backend.move_prefix is not None


@pytest.mark.parametrize("configuration", ["tree", "older", "none"])
@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(CASES)), ids=[case["name"] for case in CASES]
)
def test_vector_against_hms_mcp(
    index: int, case: dict[str, Any], configuration: str, shared_hms: SharedHms
) -> None:
    namespace = f"vector-{index}-{configuration}"
    backend = offering(shared_hms.backend.for_namespace(namespace), configuration)
    outcome = shared_hms.loop.run(run_case(case, backend, shared_hms.data_dir, namespace))
    check_outcome(case, outcome)


def test_most_vectors_go_through_the_sdk_command_types() -> None:
    typed = [case for case in CASES if sdk_command(case["command"]) is not None]
    assert len(typed) > len(CASES) // 2
