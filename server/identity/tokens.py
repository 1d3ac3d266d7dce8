"""Agent and principal tokens: high-entropy secrets shown once, stored only as a SHA-256 digest.

A slow password hash buys nothing for 256-bit random secrets and would cost every request;
SHA-256 of such a secret cannot be reversed, so a database dump gives nothing usable.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlite_utils

from server.store.database import format_time, now

AGENT_PREFIX = "pa_"
PRINCIPAL_PREFIX = "pp_"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class MintedToken:
    token: str  # the secret: returned to the caller once, never stored
    public_id: str
    scopes: tuple[str, ...]
    expires_at: str | None


def mint(
    db: sqlite_utils.Database,
    *,
    principal_id: int,
    agent_id: int | None,
    scopes: frozenset[str] | set[str],
    ttl: timedelta | None = None,
) -> MintedToken:
    kind = "agent" if agent_id is not None else "principal"
    token = (AGENT_PREFIX if kind == "agent" else PRINCIPAL_PREFIX) + secrets.token_urlsafe(32)
    public_id = "tok_" + secrets.token_hex(6)
    expires_at = format_time(datetime.now(UTC) + ttl) if ttl is not None else None
    ordered = tuple(sorted(scopes))
    db["tokens"].insert(
        {
            "public_id": public_id,
            "hash": digest(token),
            "kind": kind,
            "principal_id": principal_id,
            "agent_id": agent_id,
            "scopes": json.dumps(ordered),
            "created_at": now(),
            "expires_at": expires_at,
            "revoked_at": None,
        }
    )
    return MintedToken(token, public_id, ordered, expires_at)


def revoke(db: sqlite_utils.Database, reference: str) -> str | None:
    """Revoke by public id or by the token itself; returns the public id, or None if unknown."""
    row = db.execute(
        "SELECT id, public_id FROM tokens WHERE public_id = ? OR hash = ?", [reference, digest(reference)]
    ).fetchone()
    if row is None:
        return None
    db.execute("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [now(), row[0]])
    return row[1]
