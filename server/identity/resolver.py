"""From a request's credential to a caller: lane, why, and effective scopes, on every request.

Three outcomes stay apart: no credential (the guest lane, said loudly), a credential that
verifies, and a credential that fails (rejected with its reason; never a silent fall to guest).
The token → agent → principal chain and the signed mandate are read in one query per request,
so narrowing a mandate, revoking a token or suspending a principal counts on the very next one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import sqlite_utils

from server.identity import mandates
from server.manifest.loading import Manifest, as_text
from server.identity.mandates import MandateStatus, SigningKey
from server.store.database import now
from server.identity.tokens import AGENT_PREFIX, PRINCIPAL_PREFIX, digest

if TYPE_CHECKING:
    from server.oauth.verify import AccessClaims, AccessTokenVerifier


LEEWAY_SECONDS = 30  # clock skew allowed on time claims, at verification and at every reuse


class CredentialRejected(Exception):
    """A credential was sent and does not hold; `reason` is safe to show the caller."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Caller:
    lane: str
    why: str
    credential: str  # none | agent_token | principal_token | oauth
    scopes: frozenset[str] = frozenset()
    tools: tuple[str, ...] = ()
    token_hash: str | None = field(default=None, repr=False)
    token_public_id: str | None = None  # a token id, or an OAuth grant family
    token_scopes: frozenset[str] = frozenset()
    principal_id: int | None = None
    principal: str | None = None
    principal_status: str | None = None
    steward: bool = False
    agent_id: int | None = None
    agent: str | None = None
    mandate: MandateStatus | None = None
    claims: AccessClaims | None = field(default=None, repr=False, compare=False)
    entry_agent: str | None = None  # the manifest agent the entry table chose for this caller

    @property
    def verified(self) -> bool:
        return self.credential != "none"


# The agent → principal → newest-mandate part every credential's chain shares.
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


# One query per request and credential kind: the credential, its agent, its principal, the mandate.
_TOKEN_CHAIN = (
    "SELECT t.public_id, t.kind, t.scopes, t.expires_at, t.revoked_at, t.principal_id, t.agent_id,"
    + _PARTY + " FROM tokens AS t" + _joins("t.agent_id", "t.principal_id") + " WHERE t.hash = ?"
)
_GRANT_CHAIN = (
    "SELECT g.revoked_at, g.revoked_reason, g.principal_id, g.agent_id,"
    + _PARTY + " FROM oauth_grants AS g" + _joins("g.agent_id", "g.principal_id") + " WHERE g.family = ?"
)
_SUBJECT_CHAIN = (
    "SELECT s.agent_id," + _PARTY + " FROM external_subjects AS s" + _joins("s.agent_id", "a.principal_id")
    + " WHERE s.issuer = ? AND s.subject = ?"
)
EMBEDDED_SUBJECT_PREFIX = "agent:"


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
    """Turns credentials into callers against one store, signing key, manifest and token verifier."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        key: SigningKey,
        manifest: Manifest,
        verifier: AccessTokenVerifier | None = None,
        embedded_issuer: bool = True,
    ):
        self.db = db
        self.key = key
        self.manifest = manifest
        self.verifier = verifier
        self.embedded_issuer = embedded_issuer

    def guest(self) -> Caller:
        chosen = self.manifest.choose_agent(False, {})
        return Caller(
            lane="guest",
            why="no credential was sent",
            credential="none",
            tools=tuple(self.manifest.tools_for("guest", frozenset(), verified=False, agent=chosen)),
            entry_agent=chosen,
        )

    def from_header(self, authorization: str | None) -> Caller:
        token = bearer_token(authorization)
        if token is None:
            return self.guest()
        if token.startswith((AGENT_PREFIX, PRINCIPAL_PREFIX)):
            return self.from_hash(digest(token))
        if token.count(".") == 2:
            if self.verifier is None:
                raise CredentialRejected("this server accepts no OAuth access tokens")
            return self.from_claims(self.verifier.verify(token), digest(token))
        raise CredentialRejected("unknown token")

    def again(self, caller: Caller) -> Caller:
        """Re-resolve a caller from what it presented, as the next request would."""
        if caller.claims is not None:
            return self.from_claims(caller.claims, caller.token_hash)
        if caller.token_hash is not None:
            return self.from_hash(caller.token_hash)
        return self.guest()

    def from_hash(self, token_hash: str) -> Caller:
        row = self.db.execute(_TOKEN_CHAIN, [token_hash]).fetchone()
        if row is None:
            raise CredentialRejected("unknown token")
        public_id, kind, scopes_json, expires_at, revoked_at, principal_id, agent_id, *party = row
        if revoked_at is not None:
            raise CredentialRejected("token was revoked")
        if expires_at is not None and expires_at <= now():
            raise CredentialRejected(f"token expired at {expires_at}")
        return self._finish(
            party,
            principal_id=principal_id,
            agent_id=agent_id,
            token_scopes=frozenset(json.loads(scopes_json)),
            credential="agent_token" if kind == "agent" else "principal_token",
            token_hash=token_hash,
            token_public_id=public_id,
        )

    def from_claims(self, claims: AccessClaims, token_hash: str | None) -> Caller:
        if claims.expires_at + LEEWAY_SECONDS < time.time():
            raise CredentialRejected("token expired")
        if "mandate:write" in claims.scopes:
            raise CredentialRejected("an access token can never carry mandate:write: it is never an agent's scope")
        unknown = sorted(claims.scopes - frozenset(self.manifest.scopes))
        if unknown:
            raise CredentialRejected(f"token asks for unknown scope(s): {', '.join(unknown)}")
        if self.embedded_issuer:
            if claims.family is None:
                raise CredentialRejected("token has no 'sid' claim")
            row = self.db.execute(_GRANT_CHAIN, [claims.family]).fetchone()
            if row is None:
                raise CredentialRejected("token's grant is unknown")
            revoked_at, reason, principal_id, agent_id, *party = row
            if revoked_at is not None:
                raise CredentialRejected(f"token's grant was revoked ({reason or 'revoked'})")
            if claims.subject != f"{EMBEDDED_SUBJECT_PREFIX}{agent_id}":
                raise CredentialRejected("token subject does not match its grant")
        else:
            row = self.db.execute(_SUBJECT_CHAIN, [claims.issuer, claims.subject]).fetchone()
            if row is None:
                raise CredentialRejected("token subject is not bound to any agent of this club")
            agent_id, *party = row
            principal_id = party[1]
        return self._finish(
            party,
            principal_id=principal_id,
            agent_id=agent_id,
            token_scopes=claims.scopes,
            credential="oauth",
            token_hash=token_hash,
            token_public_id=claims.family,
            claims=claims,
        )

    def _finish(
        self,
        party: list,
        *,
        principal_id: int | None,
        agent_id: int | None,
        token_scopes: frozenset[str],
        credential: str,
        token_hash: str | None,
        token_public_id: str | None,
        claims: AccessClaims | None = None,
    ) -> Caller:
        """Check the agent → principal chain and compute lane and effective scopes."""
        (agent_row, agent_principal, agent_name, agent_revoked,
         principal_row, handle, status, steward, body, signature, key_id) = party
        is_agent = credential != "principal_token"
        if is_agent and agent_row is None:
            raise CredentialRejected("the token's agent no longer exists")
        if principal_row is None:
            raise CredentialRejected("the token's principal no longer exists")
        if is_agent:
            if agent_principal != principal_id:
                raise CredentialRejected("the token's agent no longer belongs to the principal it was minted for")
            if agent_revoked is not None:
                raise CredentialRejected(f"the token's agent '{agent_name}' was revoked")
        if status == "suspended":
            raise CredentialRejected(f"principal {handle} is suspended")
        lane = "member" if status == "member" else "applicant"
        ceiling = self.manifest.ceiling(lane)
        mandate = mandates.check(self.key, principal_id, body, signature, key_id)
        if is_agent:
            scopes = token_scopes & mandate.scopes & ceiling & self.manifest.agent_scopes
            kind = "OAuth access token" if credential == "oauth" else "agent token"
            who = f"{kind} of {handle}'s agent '{agent_name}'"
            if not mandate.valid:
                who += f"; mandate: {mandate.describe()}, so zero scopes"
        else:
            # A principal is not held by the mandate it grants its agents; only by its lane.
            scopes = token_scopes & ceiling
            who = f"principal token of {handle}"
        standing = "an admitted member" if lane == "member" else "an applicant, not yet admitted"
        entry_claims = {
            **(dict(claims.extra) if claims is not None else {}),
            "status": status, "steward": as_text(bool(steward)), "lane": lane, "handle": handle,
            "credential": credential,
        }
        chosen = self.manifest.choose_agent(True, entry_claims)
        return Caller(
            lane=lane,
            why=f"{who}; {handle} is {standing}",
            credential=credential,
            scopes=scopes,
            tools=tuple(self.manifest.tools_for(lane, scopes, verified=True, agent=chosen)),
            token_hash=token_hash,
            token_public_id=token_public_id,
            token_scopes=token_scopes,
            principal_id=principal_id,
            principal=handle,
            principal_status=status,
            steward=bool(steward),
            agent_id=agent_id if is_agent else None,
            agent=agent_name if is_agent else None,
            mandate=mandate,
            claims=claims,
            entry_agent=chosen,
        )
