"""From a request's credential to who is calling: the principal, the agent, the signed mandate.

A credential that fails raises `CredentialRejected` with its reason: it never falls silently to
the guest lane. The credential → agent → principal chain and the newest mandate are read in one
query per request, so revoking a token or suspending a principal counts on the very next one.
What the caller may reach (lane, scopes, tools) is decided next, in `server.access`.
"""

from __future__ import annotations

import json
import time

from server.identity import mandates
from server.identity.cache import TOUCH_EVERY, AtRevision, Remembered
from server.identity.credentials import (
    AGENT_PREFIX,
    EMBEDDED_SUBJECT_PREFIX,
    LEEWAY_SECONDS,
    PRINCIPAL_PREFIX,
    AccessClaims,
    CredentialKind,
    CredentialRejected,
    TokenVerifier,
    bearer_token,
    digest,
)
from server.identity.resolved import Identity as Identity  # named here by callers too
from server.keys.mandate import SigningKey
from server.store import chains
from server.store import tokens as token_rows
from server.store.database import Database, now, parse_time, revision
from server.store.principals import PrincipalStatus

wall_clock = time.time  # epoch seconds: what a remembered chain's expiry is checked against

# A request the HTTP gate serves collects its token's last use in a dict it hands down (digest →
# when: `LastUses`) and has it written once its answer has left: a stamp the console shows decides
# nothing, so no caller waits on it. Without one (in process, the CLI) it is written at once.
LastUses = dict[str, str]


def _epoch(text: str) -> float:
    """An expiry as epoch seconds; one not in the store's format counts as passed (resolved
    afresh each time, so `mandates.check` and the token row give the verdict)."""
    try:
        return parse_time(text).timestamp()
    except ValueError:
        return 0.0


class Resolver:
    """Turns credentials into identities against one store, mandate key and token verifier."""

    def __init__(
        self,
        db: Database,
        key: SigningKey,
        known_scopes: frozenset[str],
        verifier: TokenVerifier | None = None,
        embedded_issuer: bool = True,
        cache_limit: int = 100_000,
    ):
        self.db = db
        self.key = key
        self.known_scopes = known_scopes
        self.verifier = verifier
        self.embedded_issuer = embedded_issuer
        # Resolved chains and OAuth grants' identities by token digest, each valid at the revision it
        # was resolved at (`server.identity.cache`); a grant's own token expiry is checked every use
        self._chains: AtRevision[str, Remembered] = AtRevision(cache_limit)
        self._grants: AtRevision[str, tuple[Identity, float | None]] = AtRevision(cache_limit)

    def _touch(
        self, token_hash: str, entry: Remembered, moment: float, deferred: LastUses | None
    ) -> None:
        """Stamp a token's last use, at most once a minute a token: a write, not one per request
        (into `deferred` when the request writes it after its answer)."""
        if moment - entry.touched < TOUCH_EVERY:
            return
        entry.stamped(moment)
        if deferred is not None:
            deferred[token_hash] = now()
        else:
            token_rows.touch(self.db, token_hash, now())

    def write_last_use(self, stamps: LastUses) -> None:
        """The last uses a request deferred (see `LastUses`)."""
        for token_hash, stamp in stamps.items():
            token_rows.touch(self.db, token_hash, stamp)

    def _remember(
        self,
        token_hash: str,
        current: int,
        identity: Identity,
        expires_at: str | None,
        before: Remembered | None,
    ) -> Remembered:
        """Kept until the store's revision moves or the token or the mandate it verified expires;
        when the token's last use was written carries over from the entry it replaces."""
        ends = [_epoch(expires_at)] if expires_at is not None else []
        body = identity.mandate.body
        if identity.mandate.valid and body is not None:
            ends.append(_epoch(body.expires_at))
        entry = Remembered(
            identity,
            min(ends, default=None),
            before.touched if before is not None else -TOUCH_EVERY,
        )
        return self._chains.put(token_hash, current, entry)

    def from_header(
        self,
        authorization: str | None,
        current: int | None = None,
        deferred: LastUses | None = None,
    ) -> Identity | None:
        """None when no credential was sent; raises CredentialRejected when one fails. `current`:
        the store's revision when the caller has just read it (with its budget), else read here;
        `deferred`: where a token's last use waits for the request's end (else written now)."""
        token = bearer_token(authorization)
        if token is None:
            return None
        if token.startswith((AGENT_PREFIX, PRINCIPAL_PREFIX)):
            return self.from_hash(digest(token), current, deferred)
        if token.count(".") == 2:
            if self.verifier is None:
                raise CredentialRejected("this server accepts no OAuth access tokens")
            if current is None:
                current = revision(self.db)
            return self.from_claims(self.verifier.verify(token, current), digest(token), current)
        raise CredentialRejected("unknown token")

    def remembered(self, authorization: str | None) -> str | None:
        """The digest of the Parley token sent, when this resolver keeps its chain (resolved at some
        revision, perhaps not today's): a request bearing it can read the revision in the same round
        trip as its budget, and be resolved from memory if nothing changed since."""
        try:
            token = bearer_token(authorization)
        except CredentialRejected:
            return None
        if token is None:
            return None
        if token.startswith((AGENT_PREFIX, PRINCIPAL_PREFIX)):
            token_hash = digest(token)
            return token_hash if token_hash in self._chains else None
        if token.count(".") == 2 and self.verifier is not None:
            token_hash = digest(token)
            return token_hash if token_hash in self._grants else None
        return None

    def again(self, identity: Identity) -> Identity:
        """Re-resolve what was presented, as the next request would."""
        if identity.claims is not None:
            return self.from_claims(identity.claims, identity.token_hash)
        if identity.token_hash is None:
            raise CredentialRejected("nothing to resolve")
        return self.from_hash(identity.token_hash)

    def kept(self, token_hash: str, current: int, deferred: LastUses | None) -> Identity | None:
        """The identity of a Parley token whose chain is kept and still valid at revision `current`,
        when nothing has to be read or written for it now (its last use, when due, waits in
        `deferred` for the request's end): safe on the event loop. None: `from_hash` answers."""
        entry = self._chains.get(token_hash, current)
        if entry is None:
            return None
        moment = wall_clock()
        if moment < entry.due:
            return entry.identity
        if entry.valid_at(moment) and deferred is not None:
            self._touch(token_hash, entry, moment, deferred)
            return entry.identity
        return None

    def from_hash(
        self, token_hash: str, current: int | None = None, deferred: LastUses | None = None
    ) -> Identity:
        if current is None:
            current = revision(self.db)
        entry = self._chains.get(token_hash, current)
        # kept while nothing changed, until the token or the mandate expires (then resolved afresh,
        # which refuses it with its reason)
        if entry is not None:
            moment = wall_clock()
            if moment < entry.due:
                return entry.identity
            if entry.valid_at(moment):
                self._touch(token_hash, entry, moment, deferred)
                return entry.identity
        row = chains.token(self.db, token_hash)
        if row is None:
            raise CredentialRejected("unknown token")
        if row.revoked_at is not None:
            raise CredentialRejected("token was revoked")
        if row.expires_at is not None and row.expires_at <= now():
            raise CredentialRejected(f"token expired at {row.expires_at}")
        credential = (
            CredentialKind.AGENT_TOKEN if row.kind == "agent" else CredentialKind.PRINCIPAL_TOKEN
        )
        scopes: list[str] = json.loads(row.scopes_json)
        identity = self._party(
            row.party,
            credential,
            row.principal_id,
            row.agent_id,
            frozenset(scopes),
            token_hash,
            row.public_id,
            None,
            current,
        )
        before = entry or self._chains.last(token_hash)
        remembered = self._remember(token_hash, current, identity, row.expires_at, before)
        self._touch(token_hash, remembered, wall_clock(), deferred)
        return identity

    def from_claims(
        self, claims: AccessClaims, token_hash: str | None, current: int | None = None
    ) -> Identity:
        if claims.expires_at + LEEWAY_SECONDS < time.time():
            raise CredentialRejected("token expired")
        if "mandate:write" in claims.scopes:
            raise CredentialRejected(
                "an access token can never carry mandate:write: it is never an agent's scope"
            )
        unknown = sorted(claims.scopes - self.known_scopes)
        if unknown:
            raise CredentialRejected(f"token asks for unknown scope(s): {', '.join(unknown)}")
        if current is None:
            current = revision(self.db)
        kept = self._grants.get(token_hash, current) if token_hash is not None else None
        # the grant, agent and principal as read at this revision (any change to them moves it),
        # with these very claims (a token's digest names its claims), until the mandate expires
        if kept is not None and kept[0].claims == claims:
            if kept[1] is None or kept[1] > wall_clock():
                return kept[0]
        identity = self._from_grant(claims, token_hash, current)
        # an outside issuer's subject bindings do not move the revision: those are read every time
        if token_hash is not None and self.embedded_issuer:
            body = identity.mandate.body
            ends = _epoch(body.expires_at) if identity.mandate.valid and body is not None else None
            self._grants.put(token_hash, current, (identity, ends))
        return identity

    def _from_grant(self, claims: AccessClaims, token_hash: str | None, current: int) -> Identity:
        """An OAuth token's party read from the store: its grant (embedded issuer) or its bound
        subject (an outside issuer)."""
        if self.embedded_issuer:
            if claims.family is None:
                raise CredentialRejected("token has no 'sid' claim")
            grant = chains.grant(self.db, claims.family)
            if grant is None:
                raise CredentialRejected("token's grant is unknown")
            if grant.revoked_at is not None:
                reason = grant.revoked_reason or "revoked"
                raise CredentialRejected(f"token's grant was revoked ({reason})")
            if claims.subject != f"{EMBEDDED_SUBJECT_PREFIX}{grant.agent_id}":
                raise CredentialRejected("token subject does not match its grant")
            party, principal_id, agent_id = grant.party, grant.principal_id, grant.agent_id
        else:
            bound = chains.subject(self.db, claims.issuer, claims.subject)
            if bound is None:
                raise CredentialRejected("token subject is not bound to any agent of this club")
            if bound.party.agent_principal_id is None:
                raise CredentialRejected("the token's agent no longer exists")
            party, agent_id = bound.party, bound.agent_id
            principal_id = bound.party.agent_principal_id
        return self._party(
            party,
            CredentialKind.OAUTH,
            principal_id,
            agent_id,
            claims.scopes,
            token_hash,
            claims.family,
            claims,
            current,
        )

    def _party(
        self,
        party: chains.Party,
        credential: CredentialKind,
        principal_id: int,
        agent_id: int | None,
        token_scopes: frozenset[str],
        token_hash: str | None,
        public_id: str | None,
        claims: AccessClaims | None,
        current: int,
    ) -> Identity:
        """Check the agent → principal chain and verify the principal's newest mandate."""
        agent_principal, agent_name = party.agent_principal_id, party.agent_name
        agent_revoked = party.agent_revoked_at
        handle, status, steward = party.handle, party.status, party.steward
        as_agent = credential != CredentialKind.PRINCIPAL_TOKEN
        if as_agent and party.agent_id is None:
            raise CredentialRejected("the token's agent no longer exists")
        if party.principal_id is None or handle is None or status is None:
            raise CredentialRejected("the token's principal no longer exists")
        if as_agent:
            if agent_principal != principal_id:
                raise CredentialRejected(
                    "the token's agent no longer belongs to the principal it was minted for"
                )
            if agent_revoked is not None:
                raise CredentialRejected(f"the token's agent '{agent_name}' was revoked")
        if status == PrincipalStatus.SUSPENDED:
            raise CredentialRejected(f"principal {handle} is suspended")
        return Identity(
            credential=credential,
            principal_id=principal_id,
            principal=handle,
            principal_status=status,
            steward=bool(steward),
            agent_id=agent_id if as_agent else None,
            agent=agent_name if as_agent else None,
            token_scopes=token_scopes,
            mandate=mandates.check(
                self.key,
                principal_id,
                party.mandate_body,
                party.mandate_signature,
                party.mandate_key_id,
            ),
            token_hash=token_hash,
            token_public_id=public_id,
            claims=claims,
            revision=current,
        )
