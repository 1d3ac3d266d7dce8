"""Version 6: PostgreSQL's rate-limit buckets keep `taken`, how many of the requests the last budget
statement spent on the bucket it allowed. Requests of one process are admitted together, several of
one key in one statement, and an upsert's RETURNING sees only the new row: the count has to travel in
it. A bucket written before reads 0, which nothing reads back (each statement sets it). SQLite keeps
its budgets in memory: nothing to change there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.migrations.steps import add_columns_postgresql

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase


def sqlite(db: SqliteDatabase) -> None:
    """Nothing: an SQLite store has no shared buckets."""


def postgresql(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    add_columns_postgresql(conn, "rate_buckets", {"taken": "INTEGER NOT NULL DEFAULT 0"})
