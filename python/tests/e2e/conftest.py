"""The fixtures of the suites that start hms-mcp; the shared ones (``server``, ``anyio_backend``)
are in tests/conftest.py, which pytest applies here too."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hms_memory_tool._loop import LoopThread
from hms_memory_tool.hms_backend import HmsMemoryBackend, connect_hms_backend
from tests.support.servers import StdioServer


@pytest.fixture
def namespaced_server(tmp_path: Path) -> StdioServer:
    """A fresh hms-mcp whose tools take a namespace argument."""
    return StdioServer(tmp_path / "data", ["--namespace-arg"])


@dataclass(frozen=True)
class SharedHms:
    """A running hms-mcp (with --namespace-arg), its backend and where its stores are."""

    loop: LoopThread
    backend: HmsMemoryBackend
    data_dir: Path


@pytest.fixture(scope="module")
def shared_hms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedHms]:
    """One hms-mcp (with --namespace-arg) for a whole module, held open on a background loop;
    tests take a namespace each, so every one starts from an empty store."""
    server = StdioServer(tmp_path_factory.mktemp("shared") / "data", ["--namespace-arg"])
    loop = LoopThread("hms-tests")
    try:
        backend = loop.hold(connect_hms_backend(command=server.command, args=server.args))
        yield SharedHms(loop, backend, server.data_dir)
    finally:
        loop.close()
