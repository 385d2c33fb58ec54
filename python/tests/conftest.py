from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hms_memory_tool._loop import LoopThread
from hms_memory_tool.hms_backend import HmsMemoryBackend, connect_hms_backend

from .support.servers import StdioServer

# The conformance checks live in a helper module; rewrite its asserts as pytest does a test's.
pytest.register_assert_rewrite("tests.backend_conformance")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(tmp_path: Path) -> StdioServer:
    """A fresh hms-mcp on its own data directory (started by whoever connects to it)."""
    return StdioServer(tmp_path / "data")


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
