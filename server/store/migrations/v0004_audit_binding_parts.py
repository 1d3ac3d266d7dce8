"""Version 4: the audit keeps a call's binding as columns, `binding_agent` (the persona the entry
table chose) and `binding_server` (this server, `parley`), beside the `tool` it already has, instead
of the text "agent · parley · tool" the console had to split back into parts. Older rows are split
here once; the text column is then dropped. Rows without a binding (no persona) keep both NULL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.database import write
from server.store.migrations.steps import add_columns, add_columns_postgresql

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase

PARTS = {"binding_agent": "TEXT", "binding_server": "TEXT"}
SEPARATOR = " · "


def sqlite(db: SqliteDatabase) -> None:
    add_columns(db, "audit", PARTS)
    with write(db):
        present = {row[1] for row in db.execute("PRAGMA table_info(audit)").fetchall()}
        if "binding" not in present:
            return  # done already (by another process opening the same file)
        rows = db.execute("SELECT id, binding FROM audit WHERE binding IS NOT NULL").fetchall()
        for call_id, text in rows:
            parts = text.split(SEPARATOR)
            if len(parts) == 3:
                db.execute(
                    "UPDATE audit SET binding_agent = ?, binding_server = ? WHERE id = ?",
                    [parts[0], parts[1], call_id],
                )
        db.execute("ALTER TABLE audit DROP COLUMN binding")


def postgresql(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    add_columns_postgresql(conn, "audit", PARTS)
    present = conn.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = 'audit' AND column_name = 'binding'"
    ).fetchone()
    if present is None:
        return
    conn.execute(
        "UPDATE audit SET binding_agent = split_part(binding, %s, 1), "
        "binding_server = split_part(binding, %s, 2) "
        "WHERE binding IS NOT NULL AND array_length(string_to_array(binding, %s), 1) = 3",
        (SEPARATOR, SEPARATOR, SEPARATOR),
    )
    conn.execute("ALTER TABLE audit DROP COLUMN binding")
