"""Parley's rows as the objects authlib works with, and the store the authorization server works
through.

`Client`, `AuthorizationCode` and `RefreshToken` implement authlib's `ClientMixin`,
`AuthorizationCodeMixin` and `TokenMixin` interfaces (the methods authlib calls; it never checks
the class), without subclassing them: authlib ships no types, and these stay fully typed.

Nothing is stored in clear but public client metadata: client secrets, codes and refresh tokens
are digests. SQL stays in `server.store.oauth`.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import jwt

from server.identity.credentials import digest
from server.keys.oauth import KeyRing
from server.store import agents as agent_rows
from server.store import oauth as rows
from server.store import principals as principal_rows
from server.store.database import Database, now
from server.store.oauth import ClientRow, CodeRow, GrantRow, RefreshTokenRow
from server.store.principals import PrincipalStatus

CODE_TTL = 300
ACCESS_TTL = 3600
REFRESH_TTL = 30 * 24 * 3600


def canonical_resource(uri: str) -> str:
    """RFC 8707 canonical form: lowercase scheme and host, no fragment, no trailing slash."""
    parts = urlsplit(uri)
    path = parts.path.rstrip("/")
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}" + (
        f"?{parts.query}" if parts.query else ""
    )


def scope_list(scope: str | None) -> list[str]:
    return sorted(set((scope or "").split()))


def string_list(value: object) -> list[str]:
    """A metadata list of strings (registration refused anything else), or none."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


class Client:
    """A registered client; authlib's `ClientMixin` interface."""

    def __init__(self, row: ClientRow):
        self.client_id = row.client_id
        self.secret_hash = row.secret_hash
        metadata = json.loads(row.metadata)
        self.metadata: dict[str, object] = metadata if isinstance(metadata, dict) else {}

    def get_client_id(self) -> str:
        return self.client_id

    @property
    def name(self) -> str:
        """What the consent page calls it: the name it registered with, else its id."""
        name = self.metadata.get("client_name")
        return name if isinstance(name, str) and name else self.client_id

    def get_default_redirect_uri(self) -> str | None:
        uris = string_list(self.metadata.get("redirect_uris"))
        return uris[0] if len(uris) == 1 else None

    def get_allowed_scope(self, scope: str | None) -> str:
        return " ".join(scope_list(scope))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in string_list(self.metadata.get("redirect_uris"))

    def check_client_secret(self, client_secret: str) -> bool:
        return self.secret_hash is not None and secrets.compare_digest(
            self.secret_hash, digest(client_secret)
        )

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == self.metadata.get("token_endpoint_auth_method", "client_secret_basic")

    def check_response_type(self, response_type: str) -> bool:
        return response_type in (string_list(self.metadata.get("response_types")) or ["code"])

    def check_grant_type(self, grant_type: str) -> bool:
        allowed = string_list(self.metadata.get("grant_types")) or ["authorization_code"]
        return grant_type in allowed


class AuthorizationCode:
    """A stored authorization code; authlib's `AuthorizationCodeMixin` interface."""

    def __init__(self, row: CodeRow):
        self.row = row

    def get_redirect_uri(self) -> str:
        return self.row.redirect_uri

    def get_scope(self) -> str:
        return self.row.scope


class RefreshToken:
    """A stored refresh token (or the family an access token stands for); authlib's `TokenMixin`
    interface, as far as refreshing and revoking use it."""

    def __init__(self, row: RefreshTokenRow, token_hash: str | None = None):
        self.row = row
        self.token_hash = token_hash  # the digest it was presented as, when it was (a refresh)

    def check_client(self, client: Client) -> bool:
        return self.row.client_id == client.client_id

    def get_scope(self) -> str:
        return self.row.scope

    def get_expires_in(self) -> int:
        return self.row.expires_at - self.row.issued_at

    def is_expired(self) -> bool:
        return self.row.expires_at < time.time()

    def is_revoked(self) -> bool:
        return self.row.rotated_at is not None


@dataclass(frozen=True)
class Grantee:
    """The resource owner's decision: which agent the client acts as, and with which scopes."""

    principal_id: int
    agent_id: int
    scope: str
    family: str
    resource: str


class OAuthStore:
    """The authorization server's view of the store, its signing keys and its issuer."""

    def __init__(self, db: Database, ring: KeyRing, issuer: str):
        self.db = db
        self.ring = ring
        self.issuer = issuer

    def client(self, client_id: str) -> Client | None:
        row = rows.client(self.db, client_id)
        return Client(row) if row else None

    def family(self, family: str) -> GrantRow | None:
        return rows.grant(self.db, family)

    def family_revoked(self, family: str) -> bool:
        return rows.grant_revoked(self.db, family)

    def revoke_family(self, family: str, reason: str) -> None:
        rows.revoke_grant(self.db, family, reason, now())

    def may_act(self, principal_id: int, agent_id: int) -> bool:
        """A grant holds only while its principal is not suspended and its agent not revoked."""
        status = principal_rows.status_of(self.db, principal_id)
        active = {
            row.id for row in agent_rows.of_principal(self.db, principal_id, active_only=True)
        }
        return status in (PrincipalStatus.APPLICANT, PrincipalStatus.MEMBER) and agent_id in active

    def family_of_access_token(self, token: str) -> str | None:
        """The grant family of one of our own access tokens, if its signature verifies."""
        try:
            header = jwt.get_unverified_header(token)
            for jwk in self.ring.jwks()["keys"]:
                if jwk["kid"] == header.get("kid"):
                    claims = jwt.decode(
                        token,
                        jwt.PyJWK(jwk),
                        algorithms=["ES256"],
                        issuer=self.issuer,
                        options={"verify_aud": False, "verify_exp": False},
                    )
                    family = claims.get("sid")
                    return family if isinstance(family, str) else None
        except jwt.PyJWTError:
            return None
        return None
