"""The one way a presented credential becomes who is calling, on every surface.

A bearer on /mcp (an agent's or a principal's Parley token, or an OAuth access token, verified
offline by the resolver's verifier: the only place an access token is verified) and the secret a
browser's sealed console cookie holds (the console's pages and the OAuth consent pages) all come
here. What comes back is typed by what was presented: a bearer gives its `Identity` (None: none was
sent, the guest lane; a bearer that fails raises `CredentialRejected` with its reason, never a
silent guest), a console session the principal signed in (None: no live session, signed out).
Both are checked against the store on every request; what is kept between requests is kept by the
store's revision (`server.identity.cache`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

from server.identity.credentials import digest
from server.identity.resolved import Identity
from server.identity.resolver import LastUses, Resolver
from server.store import sessions


@dataclass(frozen=True, slots=True)
class Bearer:
    """The Authorization header of an /mcp request, as sent (None: none was)."""

    header: str | None


@dataclass(frozen=True, slots=True)
class ConsoleSession:
    """The session secret a browser's sealed cookie holds (only its digest is stored)."""

    secret: str


@overload
def authenticate(
    resolver: Resolver,
    presented: Bearer,
    current: int | None = None,
    deferred: LastUses | None = None,
) -> Identity | None: ...
@overload
def authenticate(
    resolver: Resolver,
    presented: ConsoleSession,
    current: int | None = None,
    deferred: LastUses | None = None,
) -> int | None: ...
def authenticate(
    resolver: Resolver,
    presented: Bearer | ConsoleSession,
    current: int | None = None,
    deferred: LastUses | None = None,
) -> Identity | int | None:
    """Who presented this credential. `current`: the store's revision when the caller has just read
    it (with its budget), so a bearer's kept chain is judged at it without another read;
    `deferred`: where a bearer's last use waits for the request's end (else it is written now)."""
    if isinstance(presented, ConsoleSession):
        # a live session: not ended, not expired, its principal not suspended
        return sessions.principal_of(resolver.db, digest(presented.secret))
    return resolver.from_header(presented.header, current, deferred)
