from __future__ import annotations

from pathlib import Path

import pytest

from .support.servers import StdioServer

# The conformance checks live in a helper module; rewrite its asserts as pytest does a test's.
pytest.register_assert_rewrite("tests.support.backend_conformance")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server(tmp_path: Path) -> StdioServer:
    """A fresh hms-mcp on its own data directory (started by whoever connects to it)."""
    return StdioServer(tmp_path / "data")
