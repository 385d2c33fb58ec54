"""The backend contract (tests/backend_conformance.py) against a real hms-mcp process, with the
server's tree capabilities, with only the older atomic operations, and with none (the
backend told to offer less than the server has). Each check runs in a namespace of its own
on one shared server, so it starts from an empty store."""

from __future__ import annotations

import pytest

from .backend_conformance import CHECKS
from .conftest import SharedHms
from .test_vectors_hms import offering


@pytest.mark.parametrize("configuration", ["tree", "older", "none"])
@pytest.mark.parametrize(("index", "name"), list(enumerate(CHECKS)), ids=list(CHECKS))
def test_hms_mcp_backend(index: int, name: str, configuration: str, shared_hms: SharedHms) -> None:
    namespace = f"conformance-{index}-{configuration}"
    backend = offering(shared_hms.backend.for_namespace(namespace), configuration)
    shared_hms.loop.run(CHECKS[name](backend))
