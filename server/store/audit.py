"""Rows of `audit`: one per tools/call, with who and how it ended, never what was sent."""

from __future__ import annotations

from server.store.database import Database

COLUMNS = ("ts", "lane", "principal", "agent", "tool", "outcome", "duration_ms", "binding", "rule")


def insert(db: Database, row: dict) -> None:
    db.execute(f"INSERT INTO audit ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})",
               [row[column] for column in COLUMNS])


def tail(db: Database, limit: int = 20, principal: str | None = None) -> list[dict]:
    """The newest `limit` rows (of one principal's calls when given), oldest first."""
    where, params = ("WHERE principal = ? ", [principal]) if principal is not None else ("", [])
    rows = db.query(f"SELECT {', '.join(COLUMNS)} FROM audit {where}ORDER BY id DESC LIMIT ?", [*params, limit])
    return list(reversed(list(rows)))
