"""Rows of `audit`: one per tools/call, with who and how it ended, never what was sent."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from server.store.database import Database, first_record, records, text

# The binding (persona · server · tool) as its parts: binding_agent, binding_server, and `tool`.
COLUMNS = (
    "ts",
    "lane",
    "principal",
    "agent",
    "tool",
    "outcome",
    "duration_ms",
    "binding_agent",
    "binding_server",
    "rule",
    "path",
)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audited call as its row holds it (`COLUMNS`); `path` the decision's path as JSON."""

    ts: str
    lane: str
    principal: str | None
    agent: str | None
    tool: str
    outcome: str
    duration_ms: float
    binding_agent: str | None
    binding_server: str | None
    rule: str | None
    path: str | None


@dataclass(frozen=True, slots=True)
class AuditedCall(AuditEntry):
    """An audited call with its row id (Activity's pages link to it)."""

    id: int


CHUNK = 100  # rows a statement: far below either store's limit on parameters


@functools.lru_cache(maxsize=8)
def _insert(count: int) -> str:
    group = f"({', '.join('?' for _ in COLUMNS)})"
    return f"INSERT INTO audit ({', '.join(COLUMNS)}) VALUES {', '.join([group] * count)}"


def insert(db: Database, rows: Sequence[Sequence[object]]) -> None:
    """Rows in `COLUMNS` order, each statement atomic on its own: no unit, so no store-wide write lock
    (PostgreSQL's units take one) for rows nothing else depends on."""
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        db.execute(_insert(len(chunk)), [value for values in chunk for value in values])


def tail(db: Database, limit: int = 20, principal: str | None = None) -> list[AuditEntry]:
    """The newest `limit` rows (of one principal's calls when given), oldest first."""
    where, params = ("WHERE principal = ? ", [principal]) if principal is not None else ("", [])
    rows = records(
        db,
        AuditEntry,
        f"SELECT {', '.join(COLUMNS)} FROM audit {where}ORDER BY id DESC LIMIT ?",
        [*params, limit],
    )
    return list(reversed(rows))


FILTERED = ("agent", "tool", "outcome", "rule")  # columns Activity filters on, each by equality


def page(
    db: Database,
    principal: str | None,
    filters: dict[str, str],
    since: str | None,
    offset: int,
    limit: int,
) -> list[AuditedCall]:
    """Newest first: a page of calls (one principal's, or the club's when None), with their row ids."""
    where, params = [], []
    if principal is not None:
        where.append("principal = ?")
        params.append(principal)
    for column in FILTERED:
        if filters.get(column):
            where.append(f"{column} = ?")
            params.append(filters[column])
    if since is not None:
        where.append("ts >= ?")
        params.append(since)
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    return records(
        db,
        AuditedCall,
        f"SELECT id, {', '.join(COLUMNS)} FROM audit {clause}ORDER BY id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )


def one(db: Database, call_id: int) -> AuditedCall | None:
    return first_record(
        db, AuditedCall, f"SELECT id, {', '.join(COLUMNS)} FROM audit WHERE id = ?", [call_id]
    )


def names(db: Database, column: str, principal: str | None, limit: int = 200) -> list[str]:
    """The distinct values of a filtered column seen in the audit (of one principal's calls when given)."""
    if column not in FILTERED:
        raise ValueError(column)
    where, params = (" AND principal = ?", [principal]) if principal is not None else ("", [])
    rows = db.execute(
        f"SELECT DISTINCT {column} FROM audit WHERE {column} IS NOT NULL{where} ORDER BY {column} "
        "LIMIT ?",
        [*params, limit],
    ).fetchall()
    return [text(row[0]) for row in rows]
