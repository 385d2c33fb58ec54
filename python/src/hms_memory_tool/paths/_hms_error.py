"""The base of the package's error classes: the Python side of ``@hms/memory-paths``
``hms-error.ts``.

In TypeScript each error class carries a brand and a static ``isInstance``, because
``instanceof`` fails across copies of a package loaded side by side. Python has one copy of a
module per interpreter, so ``isinstance`` is the check: ``isinstance(error, HmsError)`` is true
for every error the package raises on purpose except :class:`MemoryPathError` (a
``ValueError``, as ``MemoryPathError`` is a plain ``Error`` in TypeScript).
"""

from __future__ import annotations


class HmsError(Exception):
    """The base of the errors of :mod:`hms_memory_tool.core` (``MemoryToolError``,
    ``MemoryBackendError``), :mod:`hms_memory_tool.hms_backend` (``HmsMcpError``,
    ``HmsConnectionError``, ``HmsMcpNotFoundError``) and :mod:`hms_memory_tool`
    (``HolographicMemoryError``). See :mod:`hms_memory_tool.errors` for the whole hierarchy."""
