"""The suites run hms-mcp on the engine they say: SQLite on the test's data directory by
default, the PostgreSQL database standing for it when ``HMS_TEST_DATABASE_URL`` is set
(``scripts/test-postgres.sh``). A memory file written through the server is looked for where
that engine keeps it, and only there, so a PostgreSQL run that quietly fell back to SQLite (or
the reverse) fails here."""

from __future__ import annotations

from hms_memory_tool import HolographicMemoryToolSync
from tests.support.postgres import base_url, known_database, psql
from tests.support.servers import StdioServer
from tests.support.store_files import store_file


def test_a_file_written_through_the_server_is_stored_by_the_engine_of_the_run(
    server: StdioServer,
) -> None:
    with HolographicMemoryToolSync.connect(command=server.command, args=server.args) as memory:
        memory.call({"command": "create", "path": "/memories/engine.md", "file_text": "here\n"})
    sqlite_file = store_file(server.data_dir)
    if base_url() is None:
        assert sqlite_file.exists()
        assert known_database(server.data_dir) is None
        return
    database = known_database(server.data_dir)
    assert database is not None
    rows = psql(
        database,
        "SELECT m.key, m.text FROM hms_memories m JOIN hms_namespaces n ON n.id = m.ns "
        "WHERE n.name = 'default';",
    )
    assert rows == "/memories/engine.md|here\n\n"
    assert not sqlite_file.exists()
    assert not server.data_dir.exists()
