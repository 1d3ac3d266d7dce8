"""What a credential that verifies resolves to: the party behind it, as the resolver hands it out."""

from __future__ import annotations

from dataclasses import dataclass, field

from server.identity.credentials import AccessClaims, CredentialKind
from server.identity.mandates import MandateStatus


@dataclass(frozen=True, slots=True)
class Identity:
    """A verified credential and the party behind it."""

    credential: CredentialKind
    principal_id: int
    principal: str
    principal_status: str
    steward: bool
    agent_id: int | None
    agent: str | None
    token_scopes: frozenset[str]
    mandate: MandateStatus
    token_hash: str | None = field(default=None, repr=False)
    token_public_id: str | None = None  # a token id, or an OAuth grant family
    claims: AccessClaims | None = field(default=None, repr=False, compare=False)
    revision: int | None = field(
        default=None, compare=False
    )  # the store's revision it was resolved at

    @property
    def acts_as_agent(self) -> bool:
        return self.credential != CredentialKind.PRINCIPAL_TOKEN
