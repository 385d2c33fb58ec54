"""connect() before any server starts: the options it refuses, and what it says when there is
no server to start. The tests that start one are in tests/e2e/test_hms_lifecycle.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hms_memory_tool import HmsMcpNotFoundError, HolographicMemoryTool, HolographicMemoryToolSync

from .support.servers import StdioServer


def test_no_server_anywhere_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HMS_MCP_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no node_modules here or above
    with pytest.raises(HmsMcpNotFoundError) as caught:
        HolographicMemoryToolSync.connect()
    # From a checkout, the package carries no hms-mcp of its own (the wheel's build adds it).
    assert str(caught.value) == (
        "No hms-mcp server to start: HMS_MCP_BIN is not set, hms-mcp is neither in "
        "node_modules nor on PATH, and this installation of holographic-memory-claude-tool "
        "carries none of its own (it was installed from source without the built server). "
        "Reinstall holographic-memory-claude-tool from PyPI (its wheel carries hms-mcp and "
        "brings Node.js as a dependency), or install hms-mcp with `npm install hms-mcp` in "
        "your project's directory (then it is found in node_modules) or `npm install --global "
        "hms-mcp` (then it is on PATH); or set HMS_MCP_BIN to its program; or pass command= "
        "(and args=) to start one, or url= to use a running one. ./scripts/setup.sh in the "
        "Holographic Memory for Claude repository builds it as packages/hms-mcp/dist/cli.js."
    )
    monkeypatch.setenv("HMS_MCP_BIN", str(tmp_path / "missing"))
    with pytest.raises(HmsMcpNotFoundError, match="which does not exist"):
        HolographicMemoryToolSync.connect()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"max_file_bytes": 0}, "max_file_bytes must be a positive integer, got 0"),
        ({"max_file_bytes": True}, "max_file_bytes must be a positive integer, got True"),
        ({"namespace": ""}, "namespace must be a non-empty string, got ''"),
    ],
)
def test_bad_options_are_refused_before_a_server_starts(
    server: StdioServer, option: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        HolographicMemoryToolSync.connect(command=server.command, args=server.args, **option)  # type: ignore[arg-type]

    async def connect_async() -> None:
        async with HolographicMemoryTool.connect(
            command=server.command,
            args=server.args,
            **option,  # type: ignore[arg-type]
        ):
            pass

    with pytest.raises(ValueError, match=message):
        asyncio.run(connect_async())
    # The server would write its pid, and create its data directory, as it starts.
    assert not server.pid_file.exists()
    assert not server.data_dir.exists()
