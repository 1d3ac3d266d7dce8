"""Rows of `mandates`: every signed version of every principal's mandate, kept for the record."""

from __future__ import annotations

from server.store.database import Database, number, text


def latest(db: Database, principal_id: int) -> tuple[str, str, str] | None:
    """(body, signature, key id) of the newest version, or None."""
    row = db.execute(
        "SELECT body, signature, key_id FROM mandates WHERE principal_id = ? ORDER BY version DESC "
        "LIMIT 1",
        [principal_id],
    ).fetchone()
    return (text(row[0]), text(row[1]), text(row[2])) if row else None


def next_version(db: Database, principal_id: int) -> int:
    """Read inside the writing unit of work (`database.write`), so no other writer can take it."""
    return number(
        db.execute(
            "SELECT COALESCE(MAX(version), 0) + 1 FROM mandates WHERE principal_id = ?",
            [principal_id],
        )
    )


def insert(
    db: Database,
    *,
    principal_id: int,
    version: int,
    body: str,
    signature: str,
    key_id: str,
    created_at: str,
) -> None:
    db.insert(
        "mandates",
        {
            "principal_id": principal_id,
            "version": version,
            "body": body,
            "signature": signature,
            "key_id": key_id,
            "created_at": created_at,
        },
    )
