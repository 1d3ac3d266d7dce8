"""A caller: who is calling (an `Identity`, or none for a guest) and what they may reach now."""

from __future__ import annotations

from dataclasses import dataclass, field

from server.access.lanes import Lane
from server.identity.credentials import AccessClaims
from server.identity.mandates import MandateStatus
from server.identity.resolved import Identity


@dataclass(frozen=True, slots=True)
class Caller:
    identity: Identity | None  # None: the guest lane, no credential sent
    lane: Lane
    why: str
    scopes: frozenset[str]
    tools: tuple[str, ...]
    entry_persona: str | None  # the manifest persona the entry table chose
    # (pure tools' answers to a caller are kept beside it: `server.access.answers`)
    # a guest's: the store's revision read with its budget (`Access.guest_at`); a verified caller's
    # is its identity's
    guest_revision: int | None = field(default=None, compare=False)

    @property
    def revision(self) -> int | None:
        """The store's revision this request's caller was resolved at, when it was read already."""
        return self.identity.revision if self.identity is not None else self.guest_revision

    # who is calling, read through: guests have none of it
    @property
    def verified(self) -> bool:
        return self.identity is not None

    @property
    def credential(self) -> str:
        return self.identity.credential if self.identity else "none"

    @property
    def principal_id(self) -> int | None:
        return self.identity.principal_id if self.identity else None

    @property
    def principal(self) -> str | None:
        return self.identity.principal if self.identity else None

    @property
    def principal_status(self) -> str | None:
        return self.identity.principal_status if self.identity else None

    @property
    def steward(self) -> bool:
        return bool(self.identity and self.identity.steward)

    @property
    def agent_id(self) -> int | None:
        return self.identity.agent_id if self.identity else None

    @property
    def agent(self) -> str | None:
        return self.identity.agent if self.identity else None

    @property
    def token_scopes(self) -> frozenset[str]:
        return self.identity.token_scopes if self.identity else frozenset()

    @property
    def token_hash(self) -> str | None:
        return self.identity.token_hash if self.identity else None

    @property
    def token_public_id(self) -> str | None:
        return self.identity.token_public_id if self.identity else None

    @property
    def mandate(self) -> MandateStatus | None:
        return self.identity.mandate if self.identity else None

    @property
    def claims(self) -> AccessClaims | None:
        return self.identity.claims if self.identity else None
