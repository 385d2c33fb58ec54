"""Memory files written straight into an hms-mcp store's SQLite file, bypassing the server's
checks, so a test can start from a file and a directory of one name: hms-mcp refuses to make
that state (it keeps the memory-file tree well formed) but serves a store that holds it, as
one written by another program can. The Python twin of @hms/test-support's file seeding; it
knows the store's file layout and schema (version 4 or later) and nothing else of the server.
Safe while a server runs on the store. On PostgreSQL (``HMS_TEST_DATABASE_URL``, see
``postgres.py``) it writes the same rows into the database standing for the data directory,
through psql, knowing the PostgreSQL engine's schema (``hms_namespaces``, ``hms_memories``)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from hms_memory_tool.core import MemoryBackend, MemoryBackendError
from hms_memory_tool.hms_backend import HmsMcpError

from .postgres import known_database, psql


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_file(data_dir: Path, namespace: str = "default") -> Path:
    """The SQLite file of ``namespace`` under hms-mcp's ``data_dir``."""
    digest = hashlib.sha256(namespace.encode("utf-8")).hexdigest()
    return data_dir / "namespaces" / f"ns-{digest[:32]}.sqlite"


def write_files_unchecked(
    data_dir: Path, files: Mapping[str, str], namespace: str = "default"
) -> None:
    """Writes ``files`` into the store as memory files, each with the next version of the
    store's clock, without any check. The store must exist and the paths be free."""
    database = known_database(data_dir)
    if database is not None:
        write_rows_unchecked(database, files, namespace)
        return
    path = store_file(data_dir, namespace)
    assert path.exists(), f"no store at {path}; let a server serve the namespace first"
    db = sqlite3.connect(path, timeout=10, isolation_level=None)
    try:
        (schema,) = db.execute("PRAGMA user_version").fetchone()
        assert schema >= 4, f"schema {schema} has no version clock"
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        db.execute("BEGIN IMMEDIATE")
        for key, text in files.items():
            (version,) = db.execute(
                "UPDATE version_clock SET value = value + 1 RETURNING value"
            ).fetchone()
            data = text.encode("utf-8")
            cursor = db.execute(
                "INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, "
                "created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?, ?, ?, ?)",
                (
                    key,
                    text,
                    '["memory-file"]',
                    version,
                    f"sha256:{sha256(data)}",
                    len(data),
                    at,
                    at,
                ),
            )
            db.execute(
                "INSERT INTO memory_tags (tag, memory_id) VALUES ('memory-file', ?)",
                (cursor.lastrowid,),
            )
        db.execute("COMMIT")
    finally:
        db.close()


# One memory file in one transaction: the namespace's clock steps once (its row lock orders
# this after any write of the server's) and the memory takes the new value as its version.
_INSERT_ROW = """
BEGIN;
WITH ns AS (
  UPDATE hms_namespaces SET clock = clock + 1 WHERE name = :'ns' RETURNING id, clock
)
INSERT INTO hms_memories
  (ns, key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
SELECT id, :'key', :'text', ARRAY['memory-file'], '{}', clock, :'hash', :'bytes'::integer,
  :'at', :'at'
FROM ns
RETURNING version;
COMMIT;
"""


def write_rows_unchecked(database: str, files: Mapping[str, str], namespace: str) -> None:
    """:func:`write_files_unchecked` on PostgreSQL: the namespace must exist (a server has
    served it once)."""
    at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    for key, text in files.items():
        data = text.encode("utf-8")
        variables = {
            "ns": namespace,
            "key": key,
            "text": text,
            "hash": f"sha256:{sha256(data)}",
            "bytes": str(len(data)),
            "at": at,
        }
        written = psql(database, _INSERT_ROW, variables).strip()
        assert written, f"no namespace {namespace!r} in {database}; let a server serve it first"


async def seed_files(
    data_dir: Path, namespace: str, backend: MemoryBackend, files: Mapping[str, str]
) -> None:
    """Creates each file through ``backend``; one the server refuses because it would make a
    file and a directory of one name, or because its name is a look-alike an older version let
    in, is written into the store directly instead (see :func:`write_files_unchecked`)."""
    for path, text in files.items():
        try:
            await backend.create(path, text)
        except MemoryBackendError as error:
            if error.code not in ("IS_DIRECTORY", "UNDER_FILE"):
                raise
            write_files_unchecked(data_dir, {path: text}, namespace)
        except HmsMcpError as error:
            # A look-alike name (NFC, spaces) is refused as a new name, yet a store written by
            # an older version can hold it: every such refusal says it "makes a different name".
            if "makes a different name" not in error.message:
                raise
            write_files_unchecked(data_dir, {path: text}, namespace)
