"""hms-mcp on PostgreSQL for the tests: when ``HMS_TEST_DATABASE_URL`` names a PostgreSQL
cluster (its base URL, as ``scripts/test-postgres.sh`` sets it), each data directory a test
gives a server stands for a new database of that cluster, and the server is started with
``--database-url`` instead of ``--data-dir``. Two servers on one data directory share one
database, so a test of persistence across restarts means the same on either engine.

The databases are made with ``psql`` (PostgreSQL's client, installed with the server by
``scripts/setup.sh``; ``HMS_PG_BIN`` points elsewhere), as @hms/test-support makes them.
"""

from __future__ import annotations

import os
import re
import subprocess
from itertools import count
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ENV = "HMS_TEST_DATABASE_URL"

_databases: dict[Path, str] = {}
_numbers = count(1)


def base_url() -> str | None:
    """The cluster the tests run hms-mcp on, or None for SQLite (the default)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    if urlsplit(value).scheme not in ("postgres", "postgresql"):
        pytest.fail(f"{ENV} must be a postgres:// URL of a cluster, not {value!r}")
    return value


def psql_bin() -> str:
    directory = Path(os.environ.get("HMS_PG_BIN", "/usr/lib/postgresql/15/bin"))
    binary = directory / "psql"
    if not binary.exists():
        pytest.fail(
            f"no psql in {directory}: run scripts/setup.sh (it installs postgresql-15) or point "
            "HMS_PG_BIN at a PostgreSQL bin directory"
        )
    return str(binary)


def psql(url: str, sql: str, variables: dict[str, str] | None = None) -> str:
    """Runs ``sql`` (read from stdin, so ``:'name'`` takes a variable, quoted) on ``url``;
    returns the rows, tuples only."""
    args = [psql_bin(), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", url]
    for name, value in (variables or {}).items():
        args += ["-v", f"{name}={value}"]
    result = subprocess.run(args, input=sql, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"psql failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def database_for(data_dir: Path) -> str:
    """The database standing for ``data_dir`` on the cluster (created the first time)."""
    base = base_url()
    assert base is not None, f"{ENV} is not set"
    key = data_dir.resolve()
    if key not in _databases:
        name = f"py_{os.getpid()}_{next(_numbers)}_{re.sub(r'[^a-z0-9]', '_', key.name.lower())}"
        psql(base, f"CREATE DATABASE {name[:63]}")
        parts = urlsplit(base)
        _databases[key] = urlunsplit(parts._replace(path=f"/{name[:63]}"))
    return _databases[key]


def known_database(data_dir: Path) -> str | None:
    """The database a server on ``data_dir`` was given, if any (None on SQLite)."""
    return _databases.get(data_dir.resolve())


def store_args(data_dir: Path) -> list[str]:
    """Where a server keeps its stores: ``--data-dir`` on SQLite, ``--database-url`` on
    PostgreSQL when ``HMS_TEST_DATABASE_URL`` is set."""
    if base_url() is None:
        return ["--data-dir", str(data_dir)]
    return ["--database-url", database_for(data_dir)]
