"""Version 3, the baseline: every table, index, later column and trigger as they stood when
migrations became numbered files. Versions 1 and 2 were earlier states of the same schema (recorded
only by PostgreSQL stores); every statement here is idempotent, so a store at 1 or 2, or an SQLite
file from before versions were recorded, comes up to 3 by running it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.migrations.steps import add_columns
from server.store.schema import LATER_COLUMNS, SCHEMA, postgres_schema

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase


def sqlite(db: SqliteDatabase) -> None:
    db.executescript(SCHEMA)
    for table in dict.fromkeys(table for table, _, _ in LATER_COLUMNS):
        add_columns(
            db, table, {column: kind for name, column, kind in LATER_COLUMNS if name == table}
        )


def postgresql(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute(postgres_schema())
