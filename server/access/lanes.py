"""THE lane rule and every scope intersection: nowhere else decides what a caller may reach.

Lane: no credential → guest; an admitted member → member; anyone else verified → applicant
(a suspended principal never gets here: the resolver refuses the credential).
Effective scopes, per request: token ∩ signed mandate ∩ lane ceiling ∩ what agents may hold;
a principal's own token is held by its lane only (the mandate governs its agents, not itself).
"""

from __future__ import annotations

from enum import StrEnum

from server.identity.credentials import CredentialRejected
from server.identity.principals import PrincipalStatus
from server.manifest.schema import Manifest


class Lane(StrEnum):
    """A caller's lane. A StrEnum: each equals its name as text, so the wire, the audit rows and the
    manifest's `lanes:` keys read exactly as before; compare with these, never with a literal."""

    GUEST = "guest"
    APPLICANT = "applicant"
    MEMBER = "member"


GUEST, APPLICANT, MEMBER = Lane.GUEST, Lane.APPLICANT, Lane.MEMBER
LANES = tuple(Lane)


def lane_of(status: str | None) -> Lane:
    """The lane for a principal's status; None (no principal) is the guest lane. Fails closed."""
    if status is None:
        return GUEST
    if status == PrincipalStatus.MEMBER:
        return MEMBER
    if status == PrincipalStatus.APPLICANT:
        return APPLICANT
    raise CredentialRejected(f"a principal who is {status} reaches no lane")


def default_scopes(manifest: Manifest, lane: str) -> frozenset[str]:
    """What a mandate signed for this lane grants by default: every agent scope its ceiling holds."""
    return manifest.ceiling(lane) & manifest.agent_scopes


def grantable_scopes(
    manifest: Manifest, lane: str, mandate_scopes: frozenset[str]
) -> frozenset[str]:
    """What a principal may hand an agent now (consent, step-up): mandate ∩ lane ceiling ∩ agent scopes."""
    return mandate_scopes & default_scopes(manifest, lane)


def effective_scopes(
    manifest: Manifest,
    lane: str,
    token_scopes: frozenset[str],
    mandate_scopes: frozenset[str],
    as_agent: bool,
) -> frozenset[str]:
    if as_agent:
        return token_scopes & grantable_scopes(manifest, lane, mandate_scopes)
    return token_scopes & manifest.ceiling(lane)


def token_scopes_allowed(manifest: Manifest, principal_token: bool) -> frozenset[str]:
    """Scopes a minted token may carry: any declared one for a principal's own token, agents' otherwise."""
    return frozenset(manifest.scopes) if principal_token else manifest.agent_scopes
