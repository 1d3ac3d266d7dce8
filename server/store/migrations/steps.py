"""What migrations do often, on each store: add columns a table lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.database import Database, write

if TYPE_CHECKING:
    import psycopg


def add_columns(db: Database, table: str, columns: dict[str, str]) -> None:
    """SQLite: add the columns a table lacks (name → type), looking and adding inside one unit."""
    with write(db):
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})").fetchall()}
        for column, kind in columns.items():
            if column not in present:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def add_columns_postgresql(
    conn: psycopg.Connection[tuple[object, ...]], table: str, columns: dict[str, str]
) -> None:
    """PostgreSQL: the same columns, each `IF NOT EXISTS`."""
    for column, kind in columns.items():
        conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
