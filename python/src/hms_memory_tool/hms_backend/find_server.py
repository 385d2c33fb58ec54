"""Finding the hms-mcp to start: the Python side of ``@hms/memory-backend-hms``
``find-server.ts``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from mcp.client.stdio import get_default_environment

from .errors import HmsMcpNotFoundError

_SCRIPT_SUFFIXES: Final = (".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class ServerCommand:
    """How to start an hms-mcp server process."""

    command: str
    args: tuple[str, ...] = ()


def find_server() -> ServerCommand:
    """The hms-mcp to start when neither ``command`` nor ``url`` is given: ``HMS_MCP_BIN``
    (an executable, or a ``.js`` file run with ``node``), else ``hms-mcp`` on ``PATH``.

    Raises :class:`HmsMcpNotFoundError`, saying how to get one, when there is none.
    """
    configured = os.environ.get("HMS_MCP_BIN")
    if configured:
        if not os.path.exists(configured):
            raise HmsMcpNotFoundError(
                f"HMS_MCP_BIN is set to {configured}, which does not exist. Point it at the "
                "hms-mcp executable (packages/hms-mcp/dist/cli.js in a build of the "
                "Holographic Memory for Claude repository), or unset it to use hms-mcp on PATH."
            )
        if configured.endswith(_SCRIPT_SUFFIXES):
            node = shutil.which("node")
            if node is None:
                raise HmsMcpNotFoundError(
                    f"HMS_MCP_BIN is {configured}, a JavaScript file, but node is not on PATH. "
                    "Install Node.js 20.11 or later."
                )
            return ServerCommand(node, (configured,))
        return ServerCommand(configured)
    on_path = shutil.which("hms-mcp")
    if on_path is not None:
        return ServerCommand(on_path)
    raise HmsMcpNotFoundError(
        "No hms-mcp server to start. Pass command= (and args=) to start one, or url= to use a "
        "running one; or set HMS_MCP_BIN to the hms-mcp executable; or put hms-mcp on PATH. "
        "hms-mcp needs Node.js 20.11+; ./scripts/setup.sh in the Holographic Memory for Claude "
        "repository builds it as packages/hms-mcp/dist/cli.js."
    )


def server_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of a server process: the MCP SDK's safe defaults (``PATH``, ``HOME``,
    ...), every ``HMS_MCP_*`` variable of this process (so ``HMS_MCP_DATA_DIR`` and the like
    apply) except ``HMS_MCP_TOKEN`` and ``HMS_MCP_BIN``, then ``extra``."""
    env = get_default_environment()
    for name, value in os.environ.items():
        if name.startswith("HMS_MCP_") and name not in ("HMS_MCP_TOKEN", "HMS_MCP_BIN"):
            env[name] = value
    env.update(extra or {})
    return env
