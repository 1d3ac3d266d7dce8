"""One statement on a PostgreSQL connection: the store's `?` and `:name` placeholders rewritten to
psycopg's (once per statement text), the whole result read before the connection goes back to its
pool, and the driver's errors answered as the store's (`Taken`, `StoreUnavailable`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping

import psycopg

from server.store.database import Params, StoreUnavailable, Taken

NO_ANSWER = "the store did not answer; nothing is known to have changed, retry shortly"

_PIECES = re.compile(r"'(?:[^']|'')*'|\?|(?<![:\w]):([A-Za-z_]\w*)|%")


@functools.lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """The statement with psycopg's placeholders."""

    def piece(match: re.Match[str]) -> str:
        text: str = match.group(0)
        if text.startswith("'"):
            return text
        if text == "?":
            return "%s"
        if text == "%":
            return "%%"
        return f"%({match.group(1)})s"

    return _PIECES.sub(piece, sql)


class Rows:
    """A statement's whole result, read before its connection went back to the pool."""

    def __init__(self, rows: list[tuple[object, ...]], rowcount: int, names: list[str]):
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        self.description = [(name,) for name in names] if names else None

    def fetchone(self) -> tuple[object, ...] | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[tuple[object, ...]]:
        rest, self._next = self._rows[self._next :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[tuple[object, ...]]:
        return iter(self.fetchall())


def uncounted(round_trips: int) -> None:
    """No one counts this store's round trips (the server counts them: `server.metrics`)."""


def run(
    conn: psycopg.Connection,
    sql: str,
    params: Params,
    counted: Callable[[int], None] = uncounted,
) -> Rows:
    text = translate(sql)
    values = dict(params) if isinstance(params, Mapping) else tuple(params or ())
    counted(1)
    with conn.cursor() as cursor:
        try:
            cursor.execute(text, values)
        except psycopg.errors.UniqueViolation:
            raise Taken() from None
        except psycopg.OperationalError:
            raise StoreUnavailable(NO_ANSWER) from None
        if cursor.description is None:
            return Rows([], cursor.rowcount, [])
        return Rows(
            cursor.fetchall(), cursor.rowcount, [column.name for column in cursor.description]
        )
