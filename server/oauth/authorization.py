"""The embedded OAuth 2.1 authorization server, built on authlib's RFC 6749/7591/7636/7009 cores.

authlib does the protocol checks (client authentication, grant validation, PKCE comparison,
registration metadata); `grants` holds the rules that are Parley's own and `models` the storage;
this module is the server and its Starlette glue: the RFC 8707 `resource` put into `aud`, tokens
signed with the rotating key ring, and requests read before authlib sees them.
"""

from __future__ import annotations

import secrets
import time

from starlette.responses import JSONResponse, RedirectResponse, Response

from server.identity.credentials import EMBEDDED_SUBJECT_PREFIX, digest
from server.oauth.authlib_api import (
    AuthorizationServer,
    BasicOAuth2Payload,
    JsonPayload,
    JsonRequest,
    OAuth2Request,
)
from server.oauth.grants import CodeGrant, RefreshGrant, Registration, Revocation, S256Required
from server.oauth.models import (
    ACCESS_TTL,
    REFRESH_TTL,
    Client,
    Grantee,
    OAuthStore,
    canonical_resource,
    scope_list,
)
from server.store import oauth as rows
from server.store.database import now, write

__all__ = [
    "BodyJsonRequest",
    "FormRequest",
    "Grantee",
    "OAuthStore",
    "ParleyAuthorizationServer",
    "canonical_resource",
]


class ParleyAuthorizationServer(AuthorizationServer):
    def __init__(self, store: OAuthStore, metadata: dict[str, object]):
        scopes = metadata["scopes_supported"]
        super().__init__(
            scopes_supported=[str(s) for s in scopes] if isinstance(scopes, list) else None
        )
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

    def handle_response(
        self, status: int, body: object, headers: list[tuple[str, str]]
    ) -> Response:
        if status == 302:
            return RedirectResponse(dict(headers)["Location"], status_code=302)
        response = JSONResponse(body if body is not None else {}, status_code=status)
        for name, value in headers:
            if name.lower() != "content-type":
                response.headers[name] = value
        response.headers["Cache-Control"] = "no-store"
        return response

    def send_signal(self, name: str, *args: object, **kwargs: object) -> None:
        return None

    def query_client(self, client_id: str) -> Client | None:
        return self.store.client(client_id)

    def _generate_token(
        self,
        grant_type: str,
        client: Client,
        user: Grantee,
        scope: str | None,
        expires_in: int | None = None,
        include_refresh_token: bool = True,
    ) -> dict[str, object]:
        issued = int(time.time())
        claims: dict[str, object] = {
            "iss": self.store.issuer,
            "sub": f"{EMBEDDED_SUBJECT_PREFIX}{user.agent_id}",
            "aud": user.resource,
            "client_id": client.get_client_id(),
            "scope": " ".join(scope_list(scope or user.scope)),
            "sid": user.family,
            "iat": issued,
            "nbf": issued,
            "exp": issued + ACCESS_TTL,
            "jti": secrets.token_urlsafe(12),
        }
        token: dict[str, object] = {
            "token_type": "Bearer",
            "access_token": self.store.ring.sign(claims),
            "expires_in": ACCESS_TTL,
            "scope": claims["scope"],
        }
        if include_refresh_token:
            token["refresh_token"] = "prt_" + secrets.token_urlsafe(32)
        return token

    def save_token(self, token: dict[str, object], request: OAuth2Request) -> None:
        grantee = request.user
        client_id = request.client.get_client_id()
        with write(self.store.db):
            rows.add_grant_once(
                self.store.db,
                {
                    "family": grantee.family,
                    "client_id": client_id,
                    "principal_id": grantee.principal_id,
                    "agent_id": grantee.agent_id,
                    "scope": grantee.scope,
                    "resource": grantee.resource,
                    "created_at": now(),
                },
            )
            refresh = token.get("refresh_token")
            if isinstance(refresh, str):
                issued = int(time.time())
                rows.add_refresh_token(
                    self.store.db,
                    {
                        "token_hash": digest(refresh),
                        "family": grantee.family,
                        "client_id": client_id,
                        "scope": token["scope"],
                        "issued_at": issued,
                        "expires_at": issued + REFRESH_TTL,
                    },
                )


class FormRequest(OAuth2Request):
    """An OAuth2Request over values already read from a Starlette request."""

    def __init__(
        self,
        method: str,
        uri: str,
        headers: dict[str, str],
        args: dict[str, str],
        form: dict[str, str],
    ):
        super().__init__(method, uri, headers=headers)
        self._args = args
        self._form = form
        self.payload = BasicOAuth2Payload({**args, **form})

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


class BodyJsonRequest(JsonRequest):
    def __init__(self, method: str, uri: str, headers: dict[str, str], data: dict[str, object]):
        super().__init__(method, uri, headers)
        self.payload = _StaticJson(data)


class _StaticJson(JsonPayload):
    def __init__(self, data: dict[str, object]):
        self._data = data

    @property
    def data(self) -> dict[str, object]:
        return self._data
