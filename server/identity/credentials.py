"""What every credential shares: the refusal, the token formats, and verified access-token claims.

A leaf: it imports nothing of Parley's but `server.errors`, so the resolver, the OAuth verifier
and the HTTP gate can all use it without importing each other.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from server.errors import ParleyError

LEEWAY_SECONDS = 30  # clock skew allowed on time claims, at verification and at every reuse
AGENT_PREFIX = "pa_"
PRINCIPAL_PREFIX = "pp_"
EMBEDDED_SUBJECT_PREFIX = "agent:"  # the embedded issuer's `sub` is agent:<agent id>
MAX_TOKEN_LENGTH = 4096


class CredentialKind(StrEnum):
    """What a verified caller presented. A StrEnum: each equals its text, as `whoami` and the audit
    show it; compare with these, never with a literal."""

    AGENT_TOKEN = "agent_token"
    PRINCIPAL_TOKEN = "principal_token"
    OAUTH = "oauth"  # an access token from the embedded authorization server


class CredentialRejected(ParleyError):
    """A credential was sent and does not hold; the message (`reason`) is safe to show the caller."""

    status = 401

    @property
    def reason(self) -> str:
        return self.message


def digest(secret: str) -> str:
    """SHA-256 of a high-entropy secret: what the store keeps instead of the secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token in an Authorization header; None only when no header was sent at all."""
    if authorization is None:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if not scheme:
        raise CredentialRejected(
            "malformed Authorization header: it is empty; send 'Bearer <token>' or none"
        )
    if scheme.lower() != "bearer":
        raise CredentialRejected("malformed Authorization header: expected 'Bearer <token>'")
    value = value.strip()
    if not value:
        raise CredentialRejected("empty bearer token")
    if " " in value or len(value) > MAX_TOKEN_LENGTH:
        raise CredentialRejected("malformed bearer token")
    return value


@dataclass(frozen=True)
class AccessClaims:
    """An OAuth access token's claims, after its signature, issuer, audience and times verified."""

    issuer: str
    subject: str
    scopes: frozenset[str]
    family: str | None
    client_id: str | None
    expires_at: int
    extra: tuple[tuple[str, str], ...] = ()  # the token's other plain claims, for the entry table


class TokenVerifier(Protocol):
    # `revision`: the store's revision the request has read already, if it has
    def verify(self, token: str, revision: int | None = None) -> AccessClaims: ...
