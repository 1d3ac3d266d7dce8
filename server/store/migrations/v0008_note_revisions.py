"""Version 8: a briefing note keeps a revision, a number that every change to its text, topic or
visibility moves on by one. An approval names the revision its principal read and applies only
while that revision is current, so an agent that replaces a note after its principal opened it
cannot have the new words approved by a form shown for the old ones. Older notes read as revision 1.

An inbox message keeps the notes it quotes as data too (`messages.quotes`, a JSON list of
{note_id, quoted, by, date}), so the inbox hands them on as items beside the prose. Older messages
read as quoting none as data (their prose still holds the notes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.store.migrations.steps import add_columns, add_columns_postgresql

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase

COLUMNS = {"revision": "INTEGER NOT NULL DEFAULT 1"}


MESSAGE_COLUMNS = {"quotes": "TEXT"}


def sqlite(db: SqliteDatabase) -> None:
    add_columns(db, "briefing", COLUMNS)
    add_columns(db, "messages", MESSAGE_COLUMNS)


def postgresql(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    add_columns_postgresql(conn, "briefing", COLUMNS)
    add_columns_postgresql(conn, "messages", MESSAGE_COLUMNS)
