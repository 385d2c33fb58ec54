"""Files written through Python read back identically through TypeScript, and the other way
round: the same commands through the Python tool and through the TypeScript package
holographic-memory-claude-tool (driven by tests/support/ts_memory.mjs), each with its own
hms-mcp process on a shared data directory."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio

from hms_memory_tool import HolographicMemoryTool, MemoryToolError
from tests.support.servers import hms_mcp_command, node

TS_MEMORY = Path(__file__).parents[1] / "support" / "ts_memory.mjs"

WRITES: list[dict[str, Any]] = [
    {"command": "create", "path": "/memories/customers/acme.md",
     "file_text": "# Acme Corp\r\n- prefers email follow-ups\r\n- café, 日本, 😀\n"},
    {"command": "create", "path": "/memories/customers/ünïcødé 😀.md",
     "file_text": "no final newline"},
    {"command": "create", "path": "/memories/notes.md", "file_text": ""},
    {"command": "insert", "path": "/memories/notes.md", "insert_line": 0,
     "insert_text": "first\n\n"},
    {"command": "insert", "path": "/memories/customers/acme.md", "insert_line": 3,
     "insert_text": "- renewal in March"},
    {"command": "str_replace", "path": "/memories/customers/acme.md",
     "old_str": "email follow-ups", "new_str": "email follow-ups (never calls)"},
    {"command": "str_replace", "path": "/memories/customers/acme.md", "old_str": "- "},
    {"command": "create", "path": "/memories/archive/2024/q1.md", "file_text": "x" * 1280},
    {"command": "rename", "old_path": "/memories/archive", "new_path": "/memories/old/archive"},
    {"command": "create", "path": "/memories/notes.md", "file_text": "again"},
    {"command": "create", "path": "/memories/../escape", "file_text": "no"},
    {"command": "delete", "path": "/memories/customers/ünïcødé 😀.md"},
    {"command": "create", "path": "/memories/customers/ünïcødé 😀.md", "file_text": "back\n"},
]  # fmt: skip

PATHS = [
    "/memories/customers/acme.md",
    "/memories/customers/ünïcødé 😀.md",
    "/memories/notes.md",
    "/memories/old/archive/2024/q1.md",
]

READS: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/customers"},
    *({"command": "view", "path": path} for path in PATHS),
    {"command": "view", "path": "/memories/customers/acme.md", "view_range": [2, -1]},
    {"command": "view", "path": "/memories/customers/acme.md", "view_range": [9, 10]},
    {"command": "view", "path": "/memories/archive"},
    *({"read": path} for path in PATHS),
]


def run_typescript(data_dir: Path, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    server = [*hms_mcp_command(), "--data-dir", str(data_dir), "--log-level", "warn"]
    completed = subprocess.run(
        [node(), str(TS_MEMORY)],
        input=json.dumps({"server": server, "commands": commands}).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    results: list[dict[str, Any]] = json.loads(completed.stdout)
    return results


def run_python(data_dir: Path, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        server = hms_mcp_command()
        args = [*server[1:], "--data-dir", str(data_dir), "--log-level", "warn"]
        results: list[dict[str, Any]] = []
        async with HolographicMemoryTool.connect(command=server[0], args=args) as memory:
            for command in commands:
                if "read" in command:
                    file = await memory.engine.backend.read(command["read"])
                    results.append({"text": None if file is None else file.content})
                    continue
                try:
                    results.append({"output": await memory.call(command)})
                except MemoryToolError as error:
                    results.append({"error": str(error), "code": error.code})
        return results

    return anyio.run(run)


def test_python_and_typescript_write_and_read_each_others_files(tmp_path: Path) -> None:
    by_python, by_typescript = tmp_path / "written-by-python", tmp_path / "written-by-typescript"

    # The same writes give the same results in both languages, errors included.
    python_writes = run_python(by_python, WRITES)
    typescript_writes = run_typescript(by_typescript, WRITES)
    assert python_writes == typescript_writes
    assert sum("error" in result for result in python_writes) == 3

    # Each language reads back what the other wrote, byte for byte.
    python_reads_own = run_python(by_python, READS)
    typescript_reads_python = run_typescript(by_python, READS)
    python_reads_typescript = run_python(by_typescript, READS)
    assert typescript_reads_python == python_reads_own
    assert python_reads_typescript == python_reads_own
    texts = [result["text"] for result in python_reads_own if "text" in result]
    assert texts == [
        "# Acme Corp\r\n- prefers email follow-ups (never calls)\r\n- café, 日本, 😀\n"
        "- renewal in March\n",
        "back\n",
        "first\n\n",
        "x" * 1280,
    ]
