"""Version 5: a change to an approved briefing note moves the store's revision, as a change to a
principal or a mandate does, so an ask keeps the notes it hands its answering agent per revision
(asking/members.py) instead of reading them on every ask; the next ask after a change reads them
afresh, in every process. Pending notes move nothing. Row triggers (`triggers.HANDED_WHEN`); older
rows need nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.triggers import handed_triggers_postgres

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase


def sqlite(db: SqliteDatabase) -> None:
    from server.store.sqlite import current_triggers

    current_triggers(
        db
    )  # SQLite's triggers are made today's at every open; here too, for the record


def postgresql(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute(handed_triggers_postgres())
