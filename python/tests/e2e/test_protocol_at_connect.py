"""The protocol check at connect, against server processes: a stand-in MCP server
(tests/support/other_server.py) that states no hms-mcp protocol version, another version, or
answers against the output schema is refused, and a real hms-mcp states the version this client
speaks. The check itself, on given capabilities, is in tests/test_protocol.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hms_memory_tool import HmsMcpError, HolographicMemoryToolSync
from hms_memory_tool.protocol import PROTOCOL_VERSION
from tests.support.servers import StdioServer

OTHER_SERVER = Path(__file__).parents[1] / "support" / "other_server.py"


def connect_to_other(capabilities: dict[str, Any], answer: dict[str, Any]) -> None:
    args = [str(OTHER_SERVER), json.dumps(capabilities), json.dumps(answer)]
    with HolographicMemoryToolSync.connect(command=sys.executable, args=args):
        pass


def test_connect_refuses_a_server_that_states_no_hms_mcp_protocol() -> None:
    with pytest.raises(HmsMcpError) as caught:
        connect_to_other({"tools": {}}, {})
    assert caught.value.code == "PROTOCOL"
    assert "other_server.py" in caught.value.message
    assert caught.value.message.endswith(
        " is not hms-mcp: it states no hms-mcp protocol version in its capabilities (this "
        f"client needs protocol {PROTOCOL_VERSION})."
    )


def test_connect_refuses_a_server_of_another_protocol_version() -> None:
    with pytest.raises(HmsMcpError) as caught:
        connect_to_other({"experimental": {"hms-mcp": {"protocolVersion": 99}}}, {})
    assert caught.value.code == "PROTOCOL"
    assert f"speaks hms-mcp protocol 99; this client needs protocol {PROTOCOL_VERSION}." in (
        caught.value.message
    )


def test_connect_refuses_an_answer_that_breaks_the_output_schema() -> None:
    # The right version, but stats with a max_text_bytes that is not an integer.
    stats = {"namespace": "default", "max_text_bytes": "32768"}
    with pytest.raises(HmsMcpError) as caught:
        connect_to_other({"experimental": {"hms-mcp": {"protocolVersion": 1}}}, stats)
    assert (caught.value.code, caught.value.message) == (
        "PROTOCOL",
        "hms-mcp answered stats with content that breaks its output schema at memories: "
        "missing; is it hms-mcp?",
    )


def test_hms_mcp_states_the_protocol_version_this_client_speaks(server: StdioServer) -> None:
    # connect() refuses a server that does not state PROTOCOL_VERSION in its initialize result.
    with HolographicMemoryToolSync.connect(command=server.command, args=server.args) as memory:
        assert memory.call({"command": "view", "path": "/memories"}).endswith("\n0B\t/memories")
