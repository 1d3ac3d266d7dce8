"""Rows of `tokens`: agent and principal tokens, stored only as digests."""

from __future__ import annotations

import json
from dataclasses import dataclass

from server.store.database import Database, text, text_or_none


def insert(
    db: Database,
    *,
    public_id: str,
    digest: str,
    kind: str,
    principal_id: int,
    agent_id: int | None,
    scopes: tuple[str, ...],
    created_at: str,
    expires_at: str | None,
    label: str | None = None,
) -> None:
    db.insert(
        "tokens",
        {
            "public_id": public_id,
            "hash": digest,
            "kind": kind,
            "principal_id": principal_id,
            "agent_id": agent_id,
            "scopes": json.dumps(list(scopes)),
            "created_at": created_at,
            "expires_at": expires_at,
            "revoked_at": None,
            "label": label,
        },
    )


def revoke(
    db: Database, public_id: str, digest: str, stamp: str, principal_id: int | None = None
) -> str | None:
    """Revoke by public id or by digest (within one principal's tokens when given); the public id, or None."""
    mine = " AND principal_id = ?" if principal_id is not None else ""
    params: list[object] = [public_id, digest] + (
        [principal_id] if principal_id is not None else []
    )
    row = db.execute(
        f"SELECT id, public_id FROM tokens WHERE (public_id = ? OR hash = ?){mine}", params
    ).fetchone()
    if row is None:
        return None
    db.execute(
        "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [stamp, row[0]]
    )
    return str(row[1])


def touch(db: Database, digest: str, stamp: str) -> None:
    """Record that a token was just used (the console shows it); callers throttle how often."""
    db.execute("UPDATE tokens SET last_used_at = ? WHERE hash = ?", [stamp, digest])


@dataclass(frozen=True, slots=True)
class ListedToken:
    """A token as its principal sees it listed: label, scopes, expiry and last use (never its secret)."""

    public_id: str
    label: str | None
    kind: str
    agent: str | None  # the agent's name, for an agent token
    scopes: tuple[str, ...]
    created_at: str
    expires_at: str | None
    last_used_at: str | None
    revoked_at: str | None


def listed_tokens(db: Database, principal_id: int, newest_first: bool = False) -> list[ListedToken]:
    """A principal's tokens, oldest first (newest first when asked)."""
    order = "DESC" if newest_first else "ASC"
    return [
        ListedToken(
            public_id=text(row["public_id"]),
            label=text_or_none(row["label"]),
            kind=text(row["kind"]),
            agent=text_or_none(row["agent"]),
            scopes=tuple(json.loads(text(row["scopes"]))),
            created_at=text(row["created_at"]),
            expires_at=text_or_none(row["expires_at"]),
            last_used_at=text_or_none(row["last_used_at"]),
            revoked_at=text_or_none(row["revoked_at"]),
        )
        for row in db.query(
            f"""SELECT t.public_id, t.label, t.kind, t.scopes, t.created_at, t.expires_at, t.last_used_at, t.revoked_at,
                  a.name AS agent
           FROM tokens t LEFT JOIN agents a ON a.id = t.agent_id
           WHERE t.principal_id = ? ORDER BY t.id {order}""",
            [principal_id],
        )
    ]


def of_principal(db: Database, principal_id: int) -> list[ListedToken]:
    return listed_tokens(db, principal_id)
