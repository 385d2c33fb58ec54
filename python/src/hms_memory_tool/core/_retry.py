"""Compare-and-set retries with full-jitter backoff, as ``@hms/memory-core`` ``retry.ts``."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar

import anyio

T = TypeVar("T")


async def _sleep_ms(ms: float) -> None:
    await anyio.sleep(ms / 1000)


@dataclass(frozen=True)
class RetryPolicy:
    """How compare-and-set conflicts are retried."""

    attempts: int = 25
    """Attempts in all, the first included."""
    base_delay_ms: float = 2
    """Upper bound of the first backoff, in milliseconds. Doubles each retry."""
    max_delay_ms: float = 200
    """Largest backoff upper bound, in milliseconds."""
    random: Callable[[], float] = field(default=random.random)
    """Uniform random number in [0, 1), for jitter."""
    sleep: Callable[[float], Awaitable[None]] = field(default=_sleep_ms)
    """Waits that many milliseconds."""


DEFAULT_RETRY_POLICY: Final = RetryPolicy()


class _Retry:
    def __repr__(self) -> str:
        return "RETRY"


#: Returned by an attempt that lost a compare-and-set race and should run again.
RETRY: Final = _Retry()


async def with_retries(
    policy: RetryPolicy,
    attempt: Callable[[int], Awaitable[T | _Retry]],
    exhausted: Callable[[], T],
) -> T:
    """Runs ``attempt`` until it returns something other than :data:`RETRY`, waiting a
    jittered, exponentially growing time between tries (uniform in
    ``[0, min(max, base * 2**n))`` before retry n+1). After ``policy.attempts`` lost races,
    returns (or raises) ``exhausted()``."""
    for n in range(policy.attempts):
        result = await attempt(n + 1)
        if not isinstance(result, _Retry):
            return result
        if n + 1 < policy.attempts:
            ceiling = min(policy.max_delay_ms, policy.base_delay_ms * 2**n)
            await policy.sleep(policy.random() * ceiling)
    return exhausted()
