"""A PostgreSQL connection that only listens for notifications: the change feed's (`cluster.feed`).

Its statements (LISTEN, the heartbeat) are the store's to send, as every other statement is; the feed
reads what arrives and says when the connection is gone (`Unreachable`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import psycopg
from psycopg import sql

from server.store.postgres import PostgresDatabase

# What a listening connection raises when the database cannot be reached or the connection dropped.
Unreachable = psycopg.OperationalError


class Listening:
    """One autocommit connection that has said LISTEN on the feed's channels."""

    def __init__(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        self._conn = conn

    def notifications(self, timeout: float) -> Iterator[tuple[str, str]]:
        """(channel, payload) of each notification that arrives within `timeout` seconds."""
        for note in self._conn.notifies(timeout=timeout):
            yield note.channel, note.payload

    def heartbeat(self) -> None:
        """One round trip: a dead connection raises here rather than waiting forever."""
        self._conn.execute("SELECT 1")


@contextmanager
def listening(
    db: PostgresDatabase, channels: Sequence[str], application_name: str
) -> Iterator[Listening]:
    """A connection of its own (never the pool's: it blocks on notifications), listening on
    `channels`, closed on leaving."""
    with psycopg.connect(
        db.url, autocommit=True, application_name=application_name, connect_timeout=10
    ) as conn:
        for channel in channels:
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        yield Listening(conn)
