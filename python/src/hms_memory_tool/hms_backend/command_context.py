"""Which memory tool command a call to hms-mcp serves, so that the server's history records
``str_replace`` rather than the tool that carried it (``remember``): the Python side of
``command-context.ts``. A context variable, so commands running side by side never mix up."""

from __future__ import annotations

from collections.abc import Awaitable
from contextvars import ContextVar
from typing import Final, TypeVar

#: The ``_meta`` key hms-mcp reads the command from.
COMMAND_META_KEY: Final = "hms-mcp/command"

_current: ContextVar[str | None] = ContextVar("hms_memory_tool_command", default=None)

T = TypeVar("T")


async def run_as_command(command: str | None, body: Awaitable[T]) -> T:
    """Awaits ``body`` with every hms-mcp call it makes labelled as serving ``command``."""
    token = _current.set(command)
    try:
        return await body
    finally:
        _current.reset(token)


def current_command() -> str | None:
    """The command the calls of the running context serve, if any."""
    return _current.get()
