"""The embedded OAuth 2.1 authorization server, built on authlib's RFC 6749/7591/7636/7009 cores.

authlib does the protocol checks (client authentication, grant validation, PKCE comparison,
registration metadata); this module supplies the storage, the rules that are Parley's own, and
the Starlette glue: PKCE S256 on every authorization, the RFC 8707 `resource` put into `aud`,
single-use codes bound to their verifier and redirect URI, refresh tokens rotated on every use
with reuse revoking the whole grant family, and nothing stored in clear but public metadata.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import sqlite_utils
from authlib.oauth2 import rfc6749, rfc7009, rfc7591, rfc7636
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload, JsonPayload, JsonRequest, OAuth2Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from server.identity.resolver import EMBEDDED_SUBJECT_PREFIX
from server.oauth.keys import KeyRing
from server.store.database import now
from server.identity.tokens import digest

CODE_TTL = 300
ACCESS_TTL = 3600
REFRESH_TTL = 30 * 24 * 3600


def canonical_resource(uri: str) -> str:
    """RFC 8707 canonical form: lowercase scheme and host, no fragment, no trailing slash."""
    parts = urlsplit(uri)
    path = parts.path.rstrip("/")
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}" + (f"?{parts.query}" if parts.query else "")


def _scope_list(scope: str | None) -> list[str]:
    return sorted(set((scope or "").split()))


# --- models: authlib's mixins over our rows ----------------------------------------------------


class Client(rfc6749.ClientMixin):
    def __init__(self, row: dict):
        self.client_id = row["client_id"]
        self.secret_hash = row["secret_hash"]
        self.metadata = json.loads(row["metadata"])

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        uris = self.metadata.get("redirect_uris") or []
        return uris[0] if len(uris) == 1 else None

    def get_allowed_scope(self, scope: str | None) -> str:
        return " ".join(_scope_list(scope))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in (self.metadata.get("redirect_uris") or [])

    def check_client_secret(self, client_secret: str) -> bool:
        return self.secret_hash is not None and secrets.compare_digest(self.secret_hash, digest(client_secret))

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == self.metadata.get("token_endpoint_auth_method", "client_secret_basic")

    def check_response_type(self, response_type: str) -> bool:
        return response_type in (self.metadata.get("response_types") or ["code"])

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in (self.metadata.get("grant_types") or ["authorization_code"])


class AuthorizationCode(rfc6749.AuthorizationCodeMixin):
    def __init__(self, row: dict):
        self.row = row

    def get_redirect_uri(self) -> str:
        return self.row["redirect_uri"]

    def get_scope(self) -> str:
        return self.row["scope"]


class RefreshToken(rfc6749.TokenMixin):
    def __init__(self, row: dict):
        self.row = row

    def check_client(self, client: Client) -> bool:
        return self.row["client_id"] == client.client_id

    def get_scope(self) -> str:
        return self.row["scope"]

    def get_expires_in(self) -> int:
        return self.row["expires_at"] - self.row["issued_at"]

    def is_expired(self) -> bool:
        return self.row["expires_at"] < time.time()

    def is_revoked(self) -> bool:
        return self.row["rotated_at"] is not None


@dataclass(frozen=True)
class Grantee:
    """The resource owner's decision: which agent the client acts as, and with which scopes."""

    principal_id: int
    agent_id: int
    scope: str
    family: str
    resource: str


# --- grants ------------------------------------------------------------------------------------


class S256Required(rfc7636.CodeChallenge):
    """PKCE on every authorization request, S256 only, for public and confidential clients alike."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise rfc6749.InvalidRequestError("PKCE is required: send code_challenge with code_challenge_method=S256")
        if data.get("code_challenge_method") != "S256":
            raise rfc6749.InvalidRequestError("code_challenge_method must be S256")
        super().validate_code_challenge(grant, redirect_uri)

    def validate_code_verifier(self, grant, result):
        if not grant.request.form.get("code_verifier"):
            raise rfc6749.InvalidRequestError("Missing 'code_verifier'")
        super().validate_code_verifier(grant, result)

    def get_authorization_code_challenge(self, authorization_code: AuthorizationCode) -> str:
        return authorization_code.row["code_challenge"]

    def get_authorization_code_challenge_method(self, authorization_code: AuthorizationCode) -> str:
        return authorization_code.row["code_challenge_method"]


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

    @property
    def store(self) -> OAuthStore:
        return self.server.store

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        grantee: Grantee = request.user
        data = request.payload.data
        self.store.db["oauth_codes"].insert(
            {
                "code_hash": digest(code),
                "client_id": request.client.client_id,
                "redirect_uri": request.payload.redirect_uri,
                "scope": grantee.scope,
                "resource": grantee.resource,
                "principal_id": grantee.principal_id,
                "agent_id": grantee.agent_id,
                "code_challenge": data["code_challenge"],
                "code_challenge_method": data["code_challenge_method"],
                "auth_time": int(time.time()),
                "expires_at": int(time.time()) + CODE_TTL,
                "used_at": None,
                "family": None,
            }
        )

    def query_authorization_code(self, code: str, client: Client) -> AuthorizationCode | None:
        rows = list(self.store.db.query("SELECT * FROM oauth_codes WHERE code_hash = ?", [digest(code)]))
        if not rows or rows[0]["client_id"] != client.client_id:
            return None
        row = rows[0]
        if row["used_at"] is not None:
            # A replayed code: whatever it already bought is revoked (RFC 6749 §4.1.2).
            if row["family"]:
                self.store.revoke_family(row["family"], "authorization code replayed")
            return None
        if row["expires_at"] < time.time():
            return None
        resource = self.request.form.get("resource")
        if resource and canonical_resource(resource) != row["resource"]:
            raise rfc6749.InvalidRequestError("resource does not match the authorization request", status_code=400)
        return AuthorizationCode(row)

    def delete_authorization_code(self, authorization_code: AuthorizationCode) -> None:
        """Codes are kept, marked used, so a replay can be recognised and its tokens revoked."""

    def authenticate_user(self, authorization_code: AuthorizationCode) -> Grantee | None:
        row = authorization_code.row
        family = "fam_" + secrets.token_urlsafe(18)
        # Claim the code atomically: of two concurrent redemptions exactly one sees rowcount 1.
        claimed = self.store.db.execute(
            "UPDATE oauth_codes SET used_at = ?, family = ? WHERE id = ? AND used_at IS NULL",
            [int(time.time()), family, row["id"]],
        ).rowcount
        if claimed != 1:
            return None
        return Grantee(row["principal_id"], row["agent_id"], row["scope"], family, row["resource"])


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    @property
    def store(self) -> OAuthStore:
        return self.server.store

    def authenticate_refresh_token(self, refresh_token: str) -> RefreshToken | None:
        rows = list(
            self.store.db.query("SELECT * FROM oauth_refresh_tokens WHERE token_hash = ?", [digest(refresh_token)])
        )
        if not rows:
            return None
        token = RefreshToken(rows[0])
        if token.is_revoked():
            # Reuse of a rotated refresh token: someone holds a copy. Revoke the whole family.
            self.store.revoke_family(token.row["family"], "refresh token reused")
            return None
        if token.is_expired() or self.store.family_revoked(token.row["family"]):
            return None
        return token

    def authenticate_user(self, refresh_token: RefreshToken) -> Grantee | None:
        grant = self.store.family(refresh_token.row["family"])
        if grant is None:
            return None
        return Grantee(grant["principal_id"], grant["agent_id"], grant["scope"], grant["family"], grant["resource"])

    def revoke_old_credential(self, refresh_token: RefreshToken) -> None:
        self.store.db.execute(
            "UPDATE oauth_refresh_tokens SET rotated_at = ? WHERE id = ? AND rotated_at IS NULL",
            [int(time.time()), refresh_token.row["id"]],
        )


# --- endpoints ---------------------------------------------------------------------------------


class Registration(rfc7591.ClientRegistrationEndpoint):
    """Open dynamic client registration (RFC 7591): any client may register; consent gates access."""

    def authenticate_token(self, request) -> bool:
        return True

    def get_server_metadata(self) -> dict:
        return self.server.metadata

    def generate_client_secret(self, request) -> str | None:
        method = request.payload.data.get("token_endpoint_auth_method", "client_secret_basic")
        return None if method == "none" else secrets.token_urlsafe(32)

    def generate_client_info(self, request) -> dict:
        """A public client gets no secret at all: RFC 7591 omits the member rather than sending null."""
        info = super().generate_client_info(request)
        if info.get("client_secret") is None:
            info.pop("client_secret", None)
            info.pop("client_secret_expires_at", None)
        return info

    def save_client(self, client_info: dict, client_metadata: dict, request) -> Client:
        uris = client_metadata.get("redirect_uris") or []
        if not uris:
            raise rfc7591.InvalidRedirectURIError("at least one redirect_uri is required")
        for uri in uris:
            parts = urlsplit(uri)
            loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
            if parts.fragment or not (parts.scheme == "https" or (parts.scheme == "http" and loopback)):
                raise rfc7591.InvalidRedirectURIError(
                    f"redirect_uri {uri} must be https, or http on a loopback address, without a fragment"
                )
        grant_types = client_metadata.get("grant_types") or ["authorization_code"]
        unsupported = sorted(set(grant_types) - {"authorization_code", "refresh_token"})
        if unsupported:
            raise rfc7591.InvalidClientMetadataError(f"unsupported grant_types: {', '.join(unsupported)}")
        metadata = {**client_metadata, "grant_types": grant_types}
        metadata.setdefault("token_endpoint_auth_method", "client_secret_basic")
        metadata.setdefault("response_types", ["code"])
        secret = client_info.get("client_secret")
        row = {
            "client_id": client_info["client_id"],
            "secret_hash": digest(secret) if secret else None,
            "metadata": json.dumps(metadata),
            "issued_at": client_info["client_id_issued_at"],
        }
        self.server.store.db["oauth_clients"].insert(row)
        return Client(row)


class Revocation(rfc7009.RevocationEndpoint):
    """RFC 7009: a refresh or access token revokes its whole grant family."""

    CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]

    def query_token(self, token_string: str, token_type_hint: str | None):
        store: OAuthStore = self.server.store
        rows = list(store.db.query("SELECT * FROM oauth_refresh_tokens WHERE token_hash = ?", [digest(token_string)]))
        if rows:
            return RefreshToken(rows[0])
        family = store.family_of_access_token(token_string)
        if family is not None:
            grant = store.family(family)
            if grant is not None:
                return RefreshToken({"client_id": grant["client_id"], "family": family, "scope": grant["scope"],
                                     "issued_at": 0, "expires_at": 0, "rotated_at": None, "id": None})
        return None

    def revoke_token(self, token: RefreshToken, request) -> None:
        self.server.store.revoke_family(token.row["family"], "revoked by the client")


# --- the store and the server ------------------------------------------------------------------


class OAuthStore:
    def __init__(self, db: sqlite_utils.Database, ring: KeyRing, issuer: str):
        self.db = db
        self.ring = ring
        self.issuer = issuer

    def client(self, client_id: str) -> Client | None:
        rows = list(self.db.query("SELECT * FROM oauth_clients WHERE client_id = ?", [client_id]))
        return Client(rows[0]) if rows else None

    def family(self, family: str) -> dict | None:
        rows = list(self.db.query("SELECT * FROM oauth_grants WHERE family = ? AND revoked_at IS NULL", [family]))
        return rows[0] if rows else None

    def family_revoked(self, family: str) -> bool:
        row = self.db.execute("SELECT revoked_at FROM oauth_grants WHERE family = ?", [family]).fetchone()
        return row is None or row[0] is not None

    def revoke_family(self, family: str, reason: str) -> None:
        self.db.execute(
            "UPDATE oauth_grants SET revoked_at = ?, revoked_reason = ? WHERE family = ? AND revoked_at IS NULL",
            [now(), reason, family],
        )

    def family_of_access_token(self, token: str) -> str | None:
        """The grant family of one of our own access tokens, if its signature verifies."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
            for jwk in self.ring.jwks()["keys"]:
                if jwk["kid"] == header.get("kid"):
                    claims = jwt.decode(token, jwt.PyJWK(jwk), algorithms=["ES256"], issuer=self.issuer,
                                        options={"verify_aud": False, "verify_exp": False})
                    return claims.get("sid")
        except jwt.PyJWTError:
            return None
        return None


class ParleyAuthorizationServer(rfc6749.AuthorizationServer):
    def __init__(self, store: OAuthStore, metadata: dict):
        super().__init__(scopes_supported=metadata["scopes_supported"])
        self.store = store
        self.metadata = metadata
        self.register_grant(CodeGrant, [S256Required(required=True)])
        self.register_grant(RefreshGrant)
        self.register_endpoint(Revocation)
        self.register_endpoint(Registration)
        self.register_token_generator("default", self._generate_token)

    # framework glue: our requests are read before authlib sees them
    def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
        return request

    def create_json_request(self, request: JsonRequest) -> JsonRequest:
        return request

    def handle_response(self, status: int, body: Any, headers: list[tuple[str, str]]) -> Response:
        if status == 302:
            return RedirectResponse(dict(headers)["Location"], status_code=302)
        response = JSONResponse(body if body is not None else {}, status_code=status)
        for name, value in headers:
            if name.lower() != "content-type":
                response.headers[name] = value
        response.headers["Cache-Control"] = "no-store"
        return response

    def send_signal(self, name: str, *args, **kwargs) -> None:
        return None

    def query_client(self, client_id: str) -> Client | None:
        return self.store.client(client_id)

    def _generate_token(self, grant_type, client, user: Grantee, scope, expires_in=None, include_refresh_token=True):
        issued = int(time.time())
        claims = {
            "iss": self.store.issuer,
            "sub": f"{EMBEDDED_SUBJECT_PREFIX}{user.agent_id}",
            "aud": user.resource,
            "client_id": client.get_client_id(),
            "scope": " ".join(_scope_list(scope or user.scope)),
            "sid": user.family,
            "iat": issued,
            "nbf": issued,
            "exp": issued + ACCESS_TTL,
            "jti": secrets.token_urlsafe(12),
        }
        token = {
            "token_type": "Bearer",
            "access_token": self.store.ring.sign(claims),
            "expires_in": ACCESS_TTL,
            "scope": claims["scope"],
        }
        if include_refresh_token:
            token["refresh_token"] = "prt_" + secrets.token_urlsafe(32)
        return token

    def save_token(self, token: dict, request: OAuth2Request) -> None:
        grantee: Grantee = request.user
        client_id = request.client.get_client_id()
        with self.store.db.atomic():
            if self.store.db.execute("SELECT 1 FROM oauth_grants WHERE family = ?", [grantee.family]).fetchone() is None:
                self.store.db["oauth_grants"].insert(
                    {
                        "family": grantee.family,
                        "client_id": client_id,
                        "principal_id": grantee.principal_id,
                        "agent_id": grantee.agent_id,
                        "scope": grantee.scope,
                        "resource": grantee.resource,
                        "created_at": now(),
                        "revoked_at": None,
                        "revoked_reason": None,
                    }
                )
            if "refresh_token" in token:
                issued = int(time.time())
                self.store.db["oauth_refresh_tokens"].insert(
                    {
                        "token_hash": digest(token["refresh_token"]),
                        "family": grantee.family,
                        "client_id": client_id,
                        "scope": token["scope"],
                        "issued_at": issued,
                        "expires_at": issued + REFRESH_TTL,
                        "rotated_at": None,
                    }
                )


class FormRequest(OAuth2Request):
    """An OAuth2Request over values already read from a Starlette request."""

    def __init__(self, method: str, uri: str, headers: dict, args: dict, form: dict):
        super().__init__(method, uri, headers=headers)
        self._args = args
        self._form = form
        self.payload = BasicOAuth2Payload({**args, **form})

    @property
    def args(self) -> dict:
        return self._args

    @property
    def form(self) -> dict:
        return self._form


class BodyJsonRequest(JsonRequest):
    def __init__(self, method: str, uri: str, headers: dict, data: dict):
        super().__init__(method, uri, headers)
        self.payload = _StaticJson(data)


class _StaticJson(JsonPayload):
    def __init__(self, data: dict):
        self._data = data

    @property
    def data(self) -> dict:
        return self._data
