"""Rows of `agents` (a principal's agents, which tokens belong to) and `external_subjects`."""

from __future__ import annotations

from dataclasses import dataclass

from server.store.database import Database, integer, records, text


@dataclass(frozen=True, slots=True)
class AgentRow:
    """One of a principal's agents: revoked_at is None while it may hold tokens."""

    id: int
    name: str
    created_at: str
    revoked_at: str | None


def insert(db: Database, principal_id: int, name: str, created_at: str) -> int:
    return db.insert(
        "agents", {"principal_id": principal_id, "name": name, "created_at": created_at}
    )


def named(db: Database, principal_id: int, name: str) -> tuple[int, str] | None:
    row = db.execute(
        "SELECT id, name FROM agents WHERE principal_id = ? AND name = ?", [principal_id, name]
    ).fetchone()
    return (integer(row[0]), text(row[1])) if row else None


def first(db: Database, principal_id: int) -> tuple[int, str] | None:
    row = db.execute(
        "SELECT id, name FROM agents WHERE principal_id = ? ORDER BY id LIMIT 1", [principal_id]
    ).fetchone()
    return (integer(row[0]), text(row[1])) if row else None


def revoke(db: Database, agent_id: int, stamp: str) -> None:
    db.execute(
        "UPDATE agents SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [stamp, agent_id]
    )


def of_principal(db: Database, principal_id: int, active_only: bool = False) -> list[AgentRow]:
    where = " AND revoked_at IS NULL" if active_only else ""
    return records(
        db,
        AgentRow,
        f"SELECT id, name, created_at, revoked_at FROM agents "
        f"WHERE principal_id = ?{where} ORDER BY id",
        [principal_id],
    )


def bind_subject(db: Database, issuer: str, subject: str, agent_id: int) -> None:
    """An external issuer's subject acts as this agent (re-binding a subject moves it)."""
    db.execute(
        "INSERT INTO external_subjects (issuer, subject, agent_id) VALUES (?, ?, ?) "
        "ON CONFLICT (issuer, subject) DO UPDATE SET agent_id = excluded.agent_id",
        [issuer, subject, agent_id],
    )
