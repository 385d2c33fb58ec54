"""The backend contract (tests/support/backend_conformance.py) against a real hms-mcp
process. Each check runs in a namespace of its own on one shared server, so it starts from an
empty store."""

from __future__ import annotations

import pytest

from tests.support.backend_conformance import checks_for

from .conftest import SharedHms

# hms-mcp always offers the tree operations.
CHECKS = checks_for(tree=True)


@pytest.mark.parametrize(("index", "name"), list(enumerate(CHECKS)), ids=list(CHECKS))
def test_hms_mcp_backend(index: int, name: str, shared_hms: SharedHms) -> None:
    backend = shared_hms.backend.for_namespace(f"conformance-{index}")
    shared_hms.loop.run(CHECKS[name](backend))
