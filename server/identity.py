"""From a request's credential to a caller: lane, why, and effective scopes, on every request.

Three outcomes stay apart: no credential (the guest lane, said loudly), a credential that
verifies, and a credential that fails (rejected with its reason; never a silent fall to guest).
The token → agent → principal chain and the signed mandate are read in one query per request,
so narrowing a mandate, revoking a token or suspending a principal counts on the very next one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import sqlite_utils

from server import mandates
from server.manifest import Manifest
from server.mandates import MandateStatus, SigningKey
from server.store import now
from server.tokens import digest


class CredentialRejected(Exception):
    """A credential was sent and does not hold; `reason` is safe to show the caller."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Caller:
    lane: str
    why: str
    credential: str  # none | agent_token | principal_token
    scopes: frozenset[str] = frozenset()
    tools: tuple[str, ...] = ()
    token_hash: str | None = field(default=None, repr=False)
    token_public_id: str | None = None
    token_scopes: frozenset[str] = frozenset()
    principal_id: int | None = None
    principal: str | None = None
    principal_status: str | None = None
    steward: bool = False
    agent_id: int | None = None
    agent: str | None = None
    mandate: MandateStatus | None = None

    @property
    def verified(self) -> bool:
        return self.credential != "none"


# One query: the token, its agent, its principal and the principal's newest mandate.
_CHAIN = """
SELECT t.public_id, t.kind, t.scopes, t.expires_at, t.revoked_at, t.principal_id, t.agent_id,
       a.id, a.principal_id, a.name,
       p.handle, p.status, p.steward,
       m.body, m.signature, m.key_id
FROM tokens AS t
LEFT JOIN agents AS a ON a.id = t.agent_id
LEFT JOIN principals AS p ON p.id = t.principal_id
LEFT JOIN mandates AS m ON m.id = (
    SELECT id FROM mandates WHERE principal_id = t.principal_id ORDER BY version DESC LIMIT 1
)
WHERE t.hash = ?
"""


def bearer_token(authorization: str | None) -> str | None:
    """The token in an Authorization header; None when no header was sent at all."""
    if authorization is None:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise CredentialRejected("malformed Authorization header: expected 'Bearer <token>'")
    value = value.strip()
    if not value:
        raise CredentialRejected("empty bearer token")
    if " " in value or len(value) > 4096:
        raise CredentialRejected("malformed bearer token")
    return value


class Resolver:
    """Turns credentials into callers against one store, signing key and manifest."""

    def __init__(self, db: sqlite_utils.Database, key: SigningKey, manifest: Manifest):
        self.db = db
        self.key = key
        self.manifest = manifest

    def guest(self) -> Caller:
        return Caller(
            lane="guest",
            why="no credential was sent",
            credential="none",
            tools=tuple(self.manifest.tools_for("guest", frozenset(), verified=False)),
        )

    def from_header(self, authorization: str | None) -> Caller:
        token = bearer_token(authorization)
        if token is None:
            return self.guest()
        return self.from_hash(digest(token))

    def from_hash(self, token_hash: str) -> Caller:
        row = self.db.execute(_CHAIN, [token_hash]).fetchone()
        if row is None:
            raise CredentialRejected("unknown token")
        (public_id, kind, scopes_json, expires_at, revoked_at, principal_id, agent_id,
         agent_row, agent_principal, agent_name, handle, status, steward, body, signature, key_id) = row
        if revoked_at is not None:
            raise CredentialRejected("token was revoked")
        if expires_at is not None and expires_at <= now():
            raise CredentialRejected(f"token expired at {expires_at}")
        if handle is None:
            raise CredentialRejected("the token's principal no longer exists")
        if kind == "agent":
            if agent_row is None:
                raise CredentialRejected("the token's agent no longer exists")
            if agent_principal != principal_id:
                raise CredentialRejected("the token's agent no longer belongs to the principal it was minted for")
        if status == "suspended":
            raise CredentialRejected(f"principal {handle} is suspended")
        lane = "member" if status == "member" else "applicant"
        token_scopes = frozenset(json.loads(scopes_json))
        ceiling = self.manifest.ceiling(lane)
        mandate = mandates.check(self.key, principal_id, body, signature, key_id)
        if kind == "agent":
            scopes = token_scopes & mandate.scopes & ceiling & self.manifest.agent_scopes
            who = f"agent token of {handle}'s agent '{agent_name}'"
            if not mandate.valid:
                who += f"; mandate: {mandate.describe()}, so zero scopes"
        else:
            # A principal is not held by the mandate it grants its agents; only by its lane.
            scopes = token_scopes & ceiling
            who = f"principal token of {handle}"
        standing = "an admitted member" if lane == "member" else "an applicant, not yet admitted"
        return Caller(
            lane=lane,
            why=f"{who}; {handle} is {standing}",
            credential="agent_token" if kind == "agent" else "principal_token",
            scopes=scopes,
            tools=tuple(self.manifest.tools_for(lane, scopes, verified=True)),
            token_hash=token_hash,
            token_public_id=public_id,
            token_scopes=token_scopes,
            principal_id=principal_id,
            principal=handle,
            principal_status=status,
            steward=bool(steward),
            agent_id=agent_id,
            agent=agent_name,
            mandate=mandate,
        )
