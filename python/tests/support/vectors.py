"""The shared command vectors (packages/memory-core/vectors/commands.json), a runner that
plays one case against any backend, as @hms/memory-core/testing's runCommandVector does, and a
case's command as the SDK's own command model, as the run against hms-mcp sends it."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pydantic
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from hms_memory_tool.core import MemoryBackend, MemoryEngine, MemoryToolError

from .servers import REPO

VECTORS_FILE = REPO / "packages" / "memory-core" / "vectors" / "commands.json"


def load_vectors() -> list[dict[str, Any]]:
    data = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
    assert data["format"] == 1
    cases: list[dict[str, Any]] = data["cases"]
    return cases


@dataclass
class Outcome:
    output: str | None = None
    error: str | None = None
    error_code: str | None = None
    files_after: dict[str, str] = field(default_factory=dict)


SeedFiles = Callable[[MemoryBackend, dict[str, str]], Awaitable[None]]


async def create_files(backend: MemoryBackend, files: dict[str, str]) -> None:
    """Creates the files one by one, in the order given (as the TypeScript createFiles)."""
    for path, text in files.items():
        await backend.create(path, text)


async def run_vector(
    case: dict[str, Any],
    backend: MemoryBackend,
    seed_files: SeedFiles = create_files,
    **engine_options: Any,
) -> Outcome:
    """Writes the case's files with ``seed_files`` (default: create), runs its command, reads
    back every file. A backend that keeps the tree well formed refuses the starting files of a
    case holding a file and a directory of one name; its caller gives another ``seed_files``."""
    await seed_files(backend, case["files"])
    options = case.get("options", {})
    engine = MemoryEngine(
        backend,
        max_view_chars=options.get("max_view_chars"),
        max_file_bytes=options.get("max_file_bytes"),
        **engine_options,
    )
    outcome = Outcome()
    try:
        outcome.output = await engine.execute(case["command"])
    except MemoryToolError as error:
        outcome.error = str(error)
        outcome.error_code = error.code
    for entry in await backend.list("/memories/"):
        file = await backend.read(entry.path)
        if file is not None:
            outcome.files_after[entry.path] = file.content
    return outcome


def check_outcome(case: dict[str, Any], outcome: Outcome) -> None:
    """Asserts the exact output or error (message and code) and the files after."""
    if "error" in case:
        assert outcome.output is None, f"unexpected output {outcome.output!r}"
        assert outcome.error == case["error"]
        assert outcome.error_code == case["error_code"]
    else:
        assert outcome.error is None, f"unexpected error {outcome.error!r}"
        assert outcome.output == case["output"]
    expected = case.get("files_after", case["files"])
    assert dict(sorted(outcome.files_after.items())) == dict(sorted(expected.items()))


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
