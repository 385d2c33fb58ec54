"""ISO 8601 times with a timezone, as recall's time filters take them; the Python side of
``@hms/memory-paths`` ``src/times.ts``, with the same grammar, calendar and rounding.

Accepted: ``YYYY-MM-DDTHH:MM``, optionally ``:SS`` and then optionally a fraction of 1 to 9
digits, followed by ``Z`` or an offset ``+HH:MM`` / ``-HH:MM``. ASCII digits only, an upper-case
``T`` and ``Z``. The fields must name a real time in the proleptic Gregorian calendar (months
01-12, days the month has, hours 00-23, minutes and seconds 00-59, offsets up to 23:59).

The instant is kept to the millisecond, a finer fraction rounded up (stored times have
milliseconds, so a bound compares the same rounded as exact). Instants outside the years 0000
to 9999 in UTC are refused. Python's ``datetime`` has no year 0, so the calendar is computed
here, as in TypeScript.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

#: Why a string is not an accepted time: not of the form; a date (and time) without ``Z`` or an
#: offset; a field out of range; an instant outside the years 0000 to 9999 in UTC.
IsoTimeProblem = Literal["not-a-time", "no-timezone", "no-such-time", "out-of-range"]

_TIME: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?"
)
_DATE_ONLY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

_DAY_MS: Final = 86_400_000


@dataclass(frozen=True)
class IsoTime:
    """An accepted time: ``utc`` as the store writes times (``YYYY-MM-DDTHH:MM:SS.sssZ``) and
    ``ms``, milliseconds since 1970-01-01T00:00:00Z."""

    utc: str
    ms: int


@dataclass(frozen=True)
class IsoTimeRefusal:
    """Why a string is not an accepted time (see :data:`IsoTimeProblem`)."""

    problem: IsoTimeProblem


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the given date (proleptic Gregorian; any year)."""
    y = year - 1 if month <= 2 else year
    era = y // 400
    year_of_era = y - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


_FIRST_MS: Final = _days_from_civil(0, 1, 1) * _DAY_MS
_LAST_MS: Final = _days_from_civil(10_000, 1, 1) * _DAY_MS - 1


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _format_utc(ms: int) -> str:
    """``ms`` (within the years 0000 to 9999) as ``YYYY-MM-DDTHH:MM:SS.sssZ``."""
    days, rest = divmod(ms, _DAY_MS)
    z = days + 719_468
    era = z // 146_097
    day_of_era = z - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    hour, rest = divmod(rest, 3_600_000)
    minute, rest = divmod(rest, 60_000)
    second, millis = divmod(rest, 1000)
    return f"{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"


def check_iso_time(value: str) -> IsoTime | IsoTimeRefusal:
    """Reads ``value`` as an ISO 8601 time with a timezone (see the module documentation)."""
    match = _TIME.fullmatch(value)
    if match is None:
        return IsoTimeRefusal(
            "no-timezone" if _DATE_ONLY.fullmatch(value) is not None else "not-a-time"
        )
    y, mo, d, h, mi, s, fraction, zone = match.groups()
    if zone is None:
        return IsoTimeRefusal("no-timezone")
    year, month, day, hour, minute = int(y), int(mo), int(d), int(h), int(mi)
    second = 0 if s is None else int(s)
    offset_hours = 0 if zone == "Z" else int(zone[1:3])
    offset_minutes = 0 if zone == "Z" else int(zone[4:6])
    if (
        not 1 <= month <= 12
        or not 1 <= day <= _days_in_month(year, month)
        or hour > 23
        or minute > 59
        or second > 59
        or offset_hours > 23
        or offset_minutes > 59
    ):
        return IsoTimeRefusal("no-such-time")
    nanos = 0 if fraction is None else int(fraction.ljust(9, "0"))
    millis = -(-nanos // 1_000_000)  # rounded up
    sign = -1 if zone.startswith("-") else 1
    ms = (
        _days_from_civil(year, month, day) * _DAY_MS
        + ((hour * 60 + minute) * 60 + second) * 1000
        + millis
        - sign * (offset_hours * 60 + offset_minutes) * 60_000
    )
    if ms < _FIRST_MS or ms > _LAST_MS:
        return IsoTimeRefusal("out-of-range")
    return IsoTime(_format_utc(ms), ms)
