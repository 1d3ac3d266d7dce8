"""Credential → identity → caller: the lane, effective scopes, entry persona and visible tools,
computed for every request from what the resolver verified."""

from __future__ import annotations

import dataclasses
import functools

from server.access.caller import Caller
from server.access.entry import entry_persona, visible_tools
from server.access.lanes import GUEST, MEMBER, effective_scopes, grantable_scopes, lane_of
from server.identity.authenticate import Bearer, authenticate
from server.identity.cache import AtRevision
from server.identity.credentials import CredentialKind
from server.identity.resolved import Identity
from server.identity.resolver import LastUses, Resolver
from server.manifest.schema import Manifest, as_text

CALLERS_KEPT = 100_000  # callers kept by token digest, as many as the resolver keeps chains


class Access:
    def __init__(self, manifest: Manifest, resolver: Resolver):
        self.manifest = manifest
        self.resolver = resolver
        # only the claims some entry row reads can change the persona: the memo below keys on those
        self._claims_read = frozenset(name for row in manifest.entry for name in (row.claims or {}))
        persona = entry_persona(manifest, False, {})
        # by token digest, at the revision its identity was resolved at (`server.identity.cache`)
        self._callers: AtRevision[str, Caller] = AtRevision(CALLERS_KEPT)
        self._guest = Caller(
            None,
            GUEST,
            "no credential was sent",
            frozenset(),
            tuple(visible_tools(manifest, frozenset(), False, persona)),
            persona,
        )
        self._guest_at = self._guest

    def guest(self) -> Caller:
        return self._guest

    def guest_at(self, revision: int) -> Caller:
        """The guest caller for a request that read the store's revision with its budget: one
        object a revision (so guests still share their kept answers), swapped whole."""
        kept = self._guest_at
        if kept.guest_revision != revision:
            kept = self._guest_at = dataclasses.replace(self._guest, guest_revision=revision)
        return kept

    def from_header(
        self,
        authorization: str | None,
        revision: int | None = None,
        deferred: LastUses | None = None,
    ) -> Caller:
        """The caller for a request's Authorization header (`authenticate`); raises
        CredentialRejected when it fails. `revision`: the store's, when the caller has just read it;
        `deferred`: where the token's last use waits for the request's end."""
        identity = authenticate(self.resolver, Bearer(authorization), revision, deferred)
        return self.guest() if identity is None else self.caller_for(identity)

    def kept_at(self, token_hash: str, revision: int, deferred: LastUses | None) -> Caller | None:
        """The caller of a Parley token whose chain the resolver keeps valid at `revision`, without
        the store (`Resolver.kept`); None: `from_header` answers."""
        identity = self.resolver.kept(token_hash, revision, deferred)
        return None if identity is None else self.caller_for(identity)

    def again(self, caller: Caller) -> Caller:
        """Re-resolve a caller from what it presented, as its next request would."""
        return (
            self.guest()
            if caller.identity is None
            else self.caller_for(self.resolver.again(caller.identity))
        )

    def grantable(self, caller: Caller) -> frozenset[str]:
        mandate = caller.mandate
        return grantable_scopes(
            self.manifest, caller.lane, mandate.scopes if mandate else frozenset()
        )

    def caller_for(self, identity: Identity) -> Caller:
        """A pure function of the identity, so made once for each identity the resolver hands out:
        kept by token digest at the identity's revision, for that very identity (the resolver hands
        out one a credential and revision)."""
        key = identity.token_hash
        kept = self._callers.get(key, identity.revision) if key is not None else None
        if kept is not None and kept.identity is identity:
            return kept
        caller = self._caller(identity)
        if key is not None:
            self._callers.put(key, identity.revision, caller)
        return caller

    def _caller(self, identity: Identity) -> Caller:
        manifest = self.manifest
        lane = lane_of(identity.principal_status)
        mandate = identity.mandate
        scopes = effective_scopes(
            manifest, lane, identity.token_scopes, mandate.scopes, identity.acts_as_agent
        )
        handle = identity.principal
        if identity.acts_as_agent:
            kind = (
                "OAuth access token"
                if identity.credential == CredentialKind.OAUTH
                else "agent token"
            )
            who = f"{kind} of {handle}'s agent '{identity.agent}'"
            if not mandate.valid:
                who += f"; mandate: {mandate.describe()}, so zero scopes"
        else:
            who = f"principal token of {handle}"
        standing = "an admitted member" if lane == MEMBER else "an applicant, not yet admitted"
        claims = {
            **(dict(identity.claims.extra) if identity.claims is not None else {}),
            "status": identity.principal_status,
            "steward": as_text(identity.steward),
            "lane": lane,
            "handle": handle,
            "credential": identity.credential,
        }
        read = tuple(
            sorted((name, value) for name, value in claims.items() if name in self._claims_read)
        )
        persona, tools = self._reach(read, scopes)
        return Caller(identity, lane, f"{who}; {handle} is {standing}", scopes, tools, persona)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one Access per server: the cache lives as long as it
    def _reach(
        self, claims: tuple[tuple[str, str], ...], scopes: frozenset[str]
    ) -> tuple[str, tuple[str, ...]]:
        """The entry table's persona and the visible tools: pure functions of claims and scopes."""
        persona = entry_persona(self.manifest, True, dict(claims))
        return persona, tuple(visible_tools(self.manifest, scopes, True, persona))
