"""Rows of `console_sessions`: sign-ins to the console, ended by sign-out, a password change or a
suspension. Only a digest of each session's secret is stored."""

from __future__ import annotations

from server.store.database import Database, integer, now


def start(db: Database, digest: str, principal_id: int, expires_at: str) -> int:
    return db.insert(
        "console_sessions",
        {
            "digest": digest,
            "principal_id": principal_id,
            "created_at": now(),
            "expires_at": expires_at,
            "ended_at": None,
            "ended_reason": None,
        },
    )


def principal_of(db: Database, digest: str) -> int | None:
    """The principal of a live session: not ended, not expired, and its principal not suspended."""
    row = db.execute(
        "SELECT s.principal_id FROM console_sessions s JOIN principals p ON p.id = s.principal_id "
        "WHERE s.digest = ? AND s.ended_at IS NULL AND s.expires_at > ? AND p.status != 'suspended'",
        [digest, now()],
    ).fetchone()
    return integer(row[0]) if row else None


def end(db: Database, digest: str, reason: str) -> None:
    db.execute(
        "UPDATE console_sessions SET ended_at = ?, ended_reason = ? WHERE digest = ? AND ended_at IS NULL",
        [now(), reason, digest],
    )


def end_all(db: Database, principal_id: int, reason: str) -> int:
    """End every live session of a principal (password changed, suspended); how many ended."""
    return db.execute(
        "UPDATE console_sessions SET ended_at = ?, ended_reason = ? "
        "WHERE principal_id = ? AND ended_at IS NULL",
        [now(), reason, principal_id],
    ).rowcount


def live_id(db: Database, digest: str) -> int | None:
    """The row of a live session (as `principal_of` reads it): what a decision made in it records."""
    row = db.execute(
        "SELECT s.id FROM console_sessions s JOIN principals p ON p.id = s.principal_id "
        "WHERE s.digest = ? AND s.ended_at IS NULL AND s.expires_at > ? AND p.status != 'suspended'",
        [digest, now()],
    ).fetchone()
    return integer(row[0]) if row else None


def live_owner(db: Database, session_id: int) -> int | None:
    """The principal of the live session with this row, or None (ended, expired, suspended, none)."""
    row = db.execute(
        "SELECT s.principal_id FROM console_sessions s JOIN principals p ON p.id = s.principal_id "
        "WHERE s.id = ? AND s.ended_at IS NULL AND s.expires_at > ? AND p.status != 'suspended'",
        [session_id, now()],
    ).fetchone()
    return integer(row[0]) if row else None
