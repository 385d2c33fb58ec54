"""ISO 8601 times as recall's filters read them (``check_iso_time``): the TypeScript package's
cases (``packages/memory-paths/src/times.test.ts``); the shared recall vectors pin both
languages' answers through ``memory_recall``'s input."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest

from hms_memory_tool.paths import IsoTime, IsoTimeRefusal, check_iso_time


def _ms(utc: str) -> int:
    when = datetime.strptime(utc, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return round(when.timestamp() * 1000)


@pytest.mark.parametrize(
    ("value", "utc"),
    [
        ("2026-07-01T00:00:00Z", "2026-07-01T00:00:00.000Z"),
        ("2026-07-01T09:30Z", "2026-07-01T09:30:00.000Z"),
        ("2026-07-01T09:30:15.5Z", "2026-07-01T09:30:15.500Z"),
        ("2026-07-01T09:30:00+02:00", "2026-07-01T07:30:00.000Z"),
        ("2026-07-01T01:00:00+02:00", "2026-06-30T23:00:00.000Z"),
        ("2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z"),
        ("2026-07-01T00:00:00-00:00", "2026-07-01T00:00:00.000Z"),
        ("2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000Z"),
        ("2026-07-01T10:00:00.0001Z", "2026-07-01T10:00:00.001Z"),
        ("2026-07-01T10:00:59.9991Z", "2026-07-01T10:01:00.000Z"),
        ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
    ],
)
def test_reads_a_time_as_its_utc_instant(value: str, utc: str) -> None:
    assert check_iso_time(value) == IsoTime(utc, _ms(utc))


def test_reads_year_zero_which_datetime_lacks() -> None:
    # 0000-01-01 is 719,528 days before 1970-01-01 in the proleptic Gregorian calendar.
    assert check_iso_time("0000-01-01T00:00:00Z") == IsoTime(
        "0000-01-01T00:00:00.000Z", -719_528 * 86_400_000
    )
    assert check_iso_time("0000-02-29T00:00:00Z") == IsoTime(
        "0000-02-29T00:00:00.000Z", (-719_528 + 59) * 86_400_000
    )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("2026-07-01", "no-timezone"),
        ("2026-07-01T10:00:00", "no-timezone"),
        ("2026-07-01T10:00", "no-timezone"),
        ("", "not-a-time"),
        ("7d", "not-a-time"),
        ("2026-07-01 10:00:00Z", "not-a-time"),
        ("2026-07-01t10:00:00z", "not-a-time"),
        ("2026-07-01T10:00:00+0200", "not-a-time"),
        ("2026-07-01T10:00:00.1234567890Z", "not-a-time"),
        ("2026-07-01T10:00:00Z\n", "not-a-time"),
        ("\uff12\uff10\uff12\uff16-07-01T10:00:00Z", "not-a-time"),
        ("2026-07-01T10:00:00Z", None),
        ("2026-02-29T00:00:00Z", "no-such-time"),
        ("1900-02-29T00:00:00Z", "no-such-time"),
        ("2026-04-31T00:00:00Z", "no-such-time"),
        ("2026-07-01T24:00:00Z", "no-such-time"),
        ("2026-12-31T23:59:60Z", "no-such-time"),
        ("2026-07-01T10:00:00+24:00", "no-such-time"),
        ("0000-01-01T00:30:00+01:00", "out-of-range"),
        ("9999-12-31T23:30:00-01:00", "out-of-range"),
    ],
)
def test_refuses_what_is_not_a_time_with_a_timezone(value: str, problem: str | None) -> None:
    check = check_iso_time(value)
    if problem is None:
        assert isinstance(check, IsoTime)
    else:
        assert check == IsoTimeRefusal(problem)  # type: ignore[arg-type]


def test_agrees_with_datetime_on_random_times_and_offsets() -> None:
    rand = random.Random(24)
    for _ in range(2000):
        instant = datetime(1, 1, 2, tzinfo=UTC) + timedelta(
            milliseconds=rand.randrange(0, 315_400_000_000_000)
        )
        offset = timedelta(minutes=rand.randrange(-23 * 60 - 59, 23 * 60 + 60))
        local = instant.astimezone(timezone(offset))
        text = local.isoformat(timespec="milliseconds")
        expected = (
            f"{instant.year:04}-{instant.month:02}-{instant.day:02}T{instant.hour:02}:"
            f"{instant.minute:02}:{instant.second:02}.{instant.microsecond // 1000:03}Z"
        )
        assert check_iso_time(text) == IsoTime(expected, _ms(expected)), text
