"""The one query per request that resolves a credential: credential → agent → principal → mandate.

Each returns the credential's own columns followed by the party every chain shares:
(agent id, agent's principal id, agent name, agent revoked at, principal id, handle, status,
steward, mandate body, signature, key id).
"""

from __future__ import annotations

from typing import Any

from server.store.database import Database

_PARTY = """
       a.id, a.principal_id, a.name, a.revoked_at,
       p.id, p.handle, p.status, p.steward,
       m.body, m.signature, m.key_id"""


def _joins(agent: str, principal: str) -> str:
    return f"""
LEFT JOIN agents AS a ON a.id = {agent}
LEFT JOIN principals AS p ON p.id = {principal}
LEFT JOIN mandates AS m ON m.id = (
    SELECT id FROM mandates WHERE principal_id = {principal} ORDER BY version DESC LIMIT 1
)"""


_TOKEN = ("SELECT t.public_id, t.kind, t.scopes, t.expires_at, t.revoked_at, t.principal_id, t.agent_id,"
          + _PARTY + " FROM tokens AS t" + _joins("t.agent_id", "t.principal_id") + " WHERE t.hash = ?")
_GRANT = ("SELECT g.revoked_at, g.revoked_reason, g.principal_id, g.agent_id,"
          + _PARTY + " FROM oauth_grants AS g" + _joins("g.agent_id", "g.principal_id") + " WHERE g.family = ?")
_SUBJECT = ("SELECT s.agent_id," + _PARTY + " FROM external_subjects AS s" + _joins("s.agent_id", "a.principal_id")
            + " WHERE s.issuer = ? AND s.subject = ?")


def token(db: Database, digest: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = db.execute(_TOKEN, [digest]).fetchone()
    return row


def grant(db: Database, family: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = db.execute(_GRANT, [family]).fetchone()
    return row


def subject(db: Database, issuer: str, subject_id: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = db.execute(_SUBJECT, [issuer, subject_id]).fetchone()
    return row
