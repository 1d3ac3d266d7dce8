"""Everything a store holds, as bytes, to show what is never in it (tokens, secrets)."""

from __future__ import annotations

from pathlib import Path

from server.store.database import Database


def store_dump(db: Database, folder: Path) -> bytes:
    """SQLite: the raw bytes of the store file and its WAL (free pages too). PostgreSQL: every row of
    every table of the database, as JSON text."""
    if db.backend == "sqlite":
        db.execute("PRAGMA wal_checkpoint(FULL)")
        return b"".join(path.read_bytes() for path in sorted(Path(folder).glob("club.db*")))
    tables = [
        row[0]
        for row in db.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchall()
    ]
    assert "tokens" in tables
    rows = []
    for table in tables:
        rows += [
            row[0] for row in db.execute(f"SELECT row_to_json(t)::text FROM {table} t").fetchall()
        ]
    return "\n".join(rows).encode()
