"""An MCP server over stdio that is not hms-mcp of this client's protocol version, to show
how the client refuses one. It answers ``initialize`` with the capabilities given as the first
argument (JSON), lists one tool, ``stats`` (with no output schema), and answers every
``tools/call`` with the structured content given as the second argument. It refuses every other
request as an unknown method (as a server of an older MCP revision
refuses ``server/discover``). Newline-delimited JSON-RPC, nothing else.

    python other_server.py '{"experimental": {"hms-mcp": {"protocolVersion": 2}}}' '{}'
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    capabilities = json.loads(sys.argv[1])
    answer = json.loads(sys.argv[2])
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method = message.get("method")
        reply: dict[str, object] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "initialize":
            reply["result"] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": capabilities,
                "serverInfo": {"name": "other-server", "version": "0.0.0"},
            }
        elif method == "tools/list":
            reply["result"] = {"tools": [{"name": "stats", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            reply["result"] = {
                "content": [{"type": "text", "text": json.dumps(answer)}],
                "structuredContent": answer,
            }
        elif method == "ping":
            reply["result"] = {}
        else:
            reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
