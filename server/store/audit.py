"""Rows of `audit`: one per tools/call, with who and how it ended, never what was sent."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from server.store.database import Database

COLUMNS = ("ts", "lane", "principal", "agent", "tool", "outcome", "duration_ms", "binding", "rule")
CHUNK = 100  # rows a statement: far below either store's limit on parameters


@functools.lru_cache(maxsize=8)
def _insert(count: int) -> str:
    group = f"({', '.join('?' for _ in COLUMNS)})"
    return f"INSERT INTO audit ({', '.join(COLUMNS)}) VALUES {', '.join([group] * count)}"


def insert(db: Database, rows: Sequence[Sequence]) -> None:
    """Rows in `COLUMNS` order, each statement atomic on its own: no unit, so no store-wide write lock
    (PostgreSQL's units take one) for rows nothing else depends on."""
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        db.execute(_insert(len(chunk)), [value for values in chunk for value in values])


def tail(db: Database, limit: int = 20, principal: str | None = None) -> list[dict]:
    """The newest `limit` rows (of one principal's calls when given), oldest first."""
    where, params = ("WHERE principal = ? ", [principal]) if principal is not None else ("", [])
    rows = db.query(f"SELECT {', '.join(COLUMNS)} FROM audit {where}ORDER BY id DESC LIMIT ?", [*params, limit])
    return list(reversed(list(rows)))
