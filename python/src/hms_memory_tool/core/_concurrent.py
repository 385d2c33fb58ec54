"""Independent backend calls issued together, as the TypeScript engine's ``Promise.all``.

A remote backend answers calls that are in flight together in about one round trip, so the
engine issues the reads one command needs at once. This works under any event loop anyio
supports (asyncio and trio), like the rest of the package.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar, overload

import anyio

_A = TypeVar("_A")
_B = TypeVar("_B")
_C = TypeVar("_C")
_D = TypeVar("_D")
_E = TypeVar("_E")


@overload
async def gather(a: Awaitable[_A], b: Awaitable[_B], /) -> tuple[_A, _B]: ...
@overload
async def gather(
    a: Awaitable[_A], b: Awaitable[_B], c: Awaitable[_C], d: Awaitable[_D], e: Awaitable[_E], /
) -> tuple[_A, _B, _C, _D, _E]: ...
@overload
async def gather(*awaitables: Awaitable[_A]) -> tuple[_A, ...]: ...


async def gather(*awaitables: Awaitable[Any]) -> tuple[Any, ...]:
    """Awaits every awaitable concurrently and returns their results in order.

    If any fails, the others still run to the end (as with ``Promise.all``, a call already
    sent is not taken back), then the first failure (in time) is raised as it is, not wrapped
    in an exception group.
    """
    results: list[Any] = [None] * len(awaitables)
    failures: list[Exception] = []

    async def run(index: int, awaitable: Awaitable[Any]) -> None:
        try:
            results[index] = await awaitable
        except Exception as error:  # re-raised below, the first one
            failures.append(error)

    async with anyio.create_task_group() as group:
        for index, awaitable in enumerate(awaitables):
            group.start_soon(run, index, awaitable)
    if failures:
        raise failures[0]
    return tuple(results)
