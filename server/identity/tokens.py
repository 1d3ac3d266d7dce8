"""Agent and principal tokens: high-entropy secrets shown once, stored only as a SHA-256 digest.

A slow password hash buys nothing for 256-bit random secrets and would cost every request;
SHA-256 of such a secret cannot be reversed, so a database dump gives nothing usable.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from server.identity.credentials import AGENT_PREFIX, PRINCIPAL_PREFIX, digest
from server.store import tokens as token_rows
from server.store.database import Database, format_time, now


@dataclass(frozen=True)
class MintedToken:
    token: str  # the secret: returned to the caller once, never stored
    public_id: str
    scopes: tuple[str, ...]
    expires_at: str | None


def mint(
    db: Database,
    *,
    principal_id: int,
    agent_id: int | None,
    scopes: frozenset[str] | set[str],
    ttl: timedelta | None = None,
    label: str | None = None,
) -> MintedToken:
    kind = "agent" if agent_id is not None else "principal"
    token = (AGENT_PREFIX if kind == "agent" else PRINCIPAL_PREFIX) + secrets.token_urlsafe(32)
    public_id = "tok_" + secrets.token_hex(6)
    expires_at = format_time(datetime.now(UTC) + ttl) if ttl is not None else None
    ordered = tuple(sorted(scopes))
    token_rows.insert(
        db,
        public_id=public_id,
        digest=digest(token),
        kind=kind,
        principal_id=principal_id,
        agent_id=agent_id,
        scopes=ordered,
        created_at=now(),
        expires_at=expires_at,
        label=label,
    )
    return MintedToken(token, public_id, ordered, expires_at)


def revoke(db: Database, reference: str, principal_id: int | None = None) -> str | None:
    """Revoke by public id or by the token itself (only among one principal's tokens, when given);
    returns the public id, or None if there is no such token."""
    return token_rows.revoke(db, reference, digest(reference), now(), principal_id)
