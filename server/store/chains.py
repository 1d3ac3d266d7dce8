"""The one query per request that resolves a credential: credential → agent → principal → mandate.

Each returns the credential's own columns followed by the party every chain shares:
(agent id, agent's principal id, agent name, agent revoked at, principal id, handle, status,
steward, mandate body, signature, key id).
"""

from __future__ import annotations

from typing import NamedTuple

from server.store.database import Database, integer, integer_or_none, text, text_or_none

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


_TOKEN = (
    "SELECT t.public_id, t.kind, t.scopes, t.expires_at, t.revoked_at, t.principal_id, t.agent_id,"
    + _PARTY
    + " FROM tokens AS t"
    + _joins("t.agent_id", "t.principal_id")
    + " WHERE t.hash = ?"
)
_GRANT = (
    "SELECT g.revoked_at, g.revoked_reason, g.principal_id, g.agent_id,"
    + _PARTY
    + " FROM oauth_grants AS g"
    + _joins("g.agent_id", "g.principal_id")
    + " WHERE g.family = ?"
)
_SUBJECT = (
    "SELECT s.agent_id,"
    + _PARTY
    + " FROM external_subjects AS s"
    + _joins("s.agent_id", "a.principal_id")
    + " WHERE s.issuer = ? AND s.subject = ?"
)


class Party(NamedTuple):
    """What every chain shares: the agent (None columns when it no longer exists), the principal,
    and the principal's newest mandate (None when it signed none)."""

    agent_id: int | None
    agent_principal_id: int | None
    agent_name: str | None
    agent_revoked_at: str | None
    principal_id: int | None
    handle: str | None
    status: str | None
    steward: int | None
    mandate_body: str | None
    mandate_signature: str | None
    mandate_key_id: str | None


class TokenChain(NamedTuple):
    public_id: str
    kind: str
    scopes_json: str
    expires_at: str | None
    revoked_at: str | None
    principal_id: int
    agent_id: int | None
    party: Party


class GrantChain(NamedTuple):
    revoked_at: str | None
    revoked_reason: str | None
    principal_id: int
    agent_id: int
    party: Party


class SubjectChain(NamedTuple):
    agent_id: int
    party: Party


def _party(row: tuple[object, ...]) -> Party:
    agent_id, agent_principal_id, agent_name, agent_revoked_at = row[:4]
    principal_id, handle, status, steward, body, signature, key_id = row[4:]
    return Party(
        integer_or_none(agent_id),
        integer_or_none(agent_principal_id),
        text_or_none(agent_name),
        text_or_none(agent_revoked_at),
        integer_or_none(principal_id),
        text_or_none(handle),
        text_or_none(status),
        integer_or_none(steward),
        text_or_none(body),
        text_or_none(signature),
        text_or_none(key_id),
    )


def token(db: Database, digest: str) -> TokenChain | None:
    row = db.execute(_TOKEN, [digest]).fetchone()
    if row is None:
        return None
    public_id, kind, scopes, expires_at, revoked_at, principal_id, agent_id = row[:7]
    return TokenChain(
        text(public_id),
        text(kind),
        text(scopes),
        text_or_none(expires_at),
        text_or_none(revoked_at),
        integer(principal_id),
        integer_or_none(agent_id),
        _party(row[7:]),
    )


def grant(db: Database, family: str) -> GrantChain | None:
    row = db.execute(_GRANT, [family]).fetchone()
    if row is None:
        return None
    revoked_at, reason, principal_id, agent_id = row[:4]
    return GrantChain(
        text_or_none(revoked_at),
        text_or_none(reason),
        integer(principal_id),
        integer(agent_id),
        _party(row[4:]),
    )


def subject(db: Database, issuer: str, subject_id: str) -> SubjectChain | None:
    row = db.execute(_SUBJECT, [issuer, subject_id]).fetchone()
    return None if row is None else SubjectChain(integer(row[0]), _party(row[1:]))
