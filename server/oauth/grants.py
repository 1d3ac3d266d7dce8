"""The grants and endpoints of the embedded authorization server, over authlib's cores.

Parley's own rules: PKCE S256 on every authorization; a code is single-use, bound to its verifier
and redirect URI, and burnt by the first failed verifier; a refresh token is claimed in one
statement and rotated on every use, and a reused one revokes its whole grant family; a suspended
principal or a revoked agent refreshes nothing; registration accepts only well-formed metadata.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from urllib.parse import urlsplit

from server.identity.credentials import digest
from server.oauth.authlib_api import (
    AuthorizationCodeGrant,
    ClientRegistrationEndpoint,
    CodeChallenge,
    InvalidClientMetadataError,
    InvalidRedirectURIError,
    InvalidRequestError,
    JsonRequest,
    OAuth2Error,
    OAuth2Request,
    RefreshTokenGrant,
    RevocationEndpoint,
)
from server.oauth.models import (
    CODE_TTL,
    AuthorizationCode,
    Client,
    Grantee,
    OAuthStore,
    RefreshToken,
    canonical_resource,
    string_list,
)
from server.store import oauth as rows
from server.store.oauth import RefreshTokenRow

AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"]


class S256Required(CodeChallenge):
    """PKCE on every authorization request, S256 only, for public and confidential clients alike."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    def validate_code_challenge(self, grant: AuthorizationCodeGrant, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError(
                "PKCE is required: send code_challenge with code_challenge_method=S256"
            )
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("code_challenge_method must be S256")
        super().validate_code_challenge(grant, redirect_uri)

    def validate_code_verifier(self, grant: AuthorizationCodeGrant, result: object) -> None:
        try:
            if not grant.request.form.get("code_verifier"):
                raise InvalidRequestError("Missing 'code_verifier'")
            super().validate_code_verifier(grant, result)
        except OAuth2Error:
            # A wrong verifier burns the code: it cannot be guessed at, one try per code.
            rows.claim_code(
                grant.server.store.db,
                grant.request.authorization_code.row.id,
                None,
                int(time.time()),
            )
            raise

    def get_authorization_code_challenge(self, authorization_code: AuthorizationCode) -> str:
        return authorization_code.row.code_challenge

    def get_authorization_code_challenge_method(self, authorization_code: AuthorizationCode) -> str:
        return authorization_code.row.code_challenge_method


class CodeGrant(AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

    @property
    def store(self) -> OAuthStore:
        return self.server.store

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        grantee = request.user
        data = request.payload.data
        issued = int(time.time())
        rows.add_code(
            self.store.db,
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
                "auth_time": issued,
                "expires_at": issued + CODE_TTL,
            },
        )

    def query_authorization_code(self, code: str, client: Client) -> AuthorizationCode | None:
        row = rows.code(self.store.db, digest(code))
        if row is None or row.client_id != client.client_id:
            return None
        if row.used_at is not None:
            # A replayed code: whatever it already bought is revoked (RFC 6749 §4.1.2).
            if row.family:
                self.store.revoke_family(row.family, "authorization code replayed")
            return None
        if row.expires_at < time.time():
            return None
        resource = self.request.form.get("resource")
        if resource and canonical_resource(resource) != row.resource:
            raise InvalidRequestError(
                "resource does not match the authorization request", status_code=400
            )
        return AuthorizationCode(row)

    def delete_authorization_code(self, authorization_code: AuthorizationCode) -> None:
        """Codes are kept, marked used, so a replay can be recognised and its tokens revoked."""

    def authenticate_user(self, authorization_code: AuthorizationCode) -> Grantee | None:
        row = authorization_code.row
        family = "fam_" + secrets.token_urlsafe(18)
        # Claim the code atomically: of two concurrent redemptions exactly one wins.
        if not rows.claim_code(self.store.db, row.id, family, int(time.time())):
            return None
        if not self.store.may_act(row.principal_id, row.agent_id):
            return None
        return Grantee(row.principal_id, row.agent_id, row.scope, family, row.resource)


class RefreshGrant(RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS
    INCLUDE_NEW_REFRESH_TOKEN = True

    @property
    def store(self) -> OAuthStore:
        return self.server.store

    def authenticate_refresh_token(self, refresh_token: str) -> RefreshToken | None:
        """The token as stored, not yet spent: authlib checks the client and the scope after this, and a
        request those refuse must leave the token working (a leaked token sent by another client, or a
        wider scope asked for, ends nothing). Only a token already rotated is spent: reuse."""
        token_hash = digest(refresh_token)
        known = rows.refresh_token(self.store.db, token_hash)
        if known is None:
            return None
        if known.rotated_at is not None:
            # Reuse of a rotated refresh token: someone holds a copy. Revoke the whole family.
            self.store.revoke_family(known.family, "refresh token reused")
            return None
        token = RefreshToken(known, token_hash)
        if token.is_expired() or self.store.family_revoked(known.family):
            return None
        return token

    def authenticate_user(self, refresh_token: RefreshToken) -> Grantee | None:
        """Called once the client and scope are checked: the token is claimed (rotated) here, in one
        statement, so of two concurrent refreshes exactly one wins and the other is taken as reuse."""
        row, token_hash = refresh_token.row, refresh_token.token_hash
        if token_hash is None or not rows.claim_refresh_token(
            self.store.db, token_hash, int(time.time())
        ):
            self.store.revoke_family(row.family, "refresh token reused")
            return None
        grant = self.store.family(row.family)
        if grant is None or not self.store.may_act(grant.principal_id, grant.agent_id):
            return None
        return Grantee(
            grant.principal_id,
            grant.agent_id,
            grant.scope,
            grant.family,
            grant.resource,
        )

    def revoke_old_credential(self, refresh_token: RefreshToken) -> None:
        """Already rotated when it was claimed (`authenticate_user`), in the statement that checked it."""


MAX_REDIRECT_URIS = 10
# The registration metadata Parley uses, each bounded; anything else is dropped (kept nowhere, sent
# back nowhere), and refused when it is long: no client fills the table with what no one reads.
SCALARS = {"client_name": 64, "token_endpoint_auth_method": 40, "scope": 500}
LISTS = ("grant_types", "response_types")
USED = frozenset({"redirect_uris", *SCALARS, *LISTS})
MAX_CLIENT_NAME = SCALARS["client_name"]
MAX_LIST, MAX_LIST_ITEM = 5, 40
MAX_UNUSED = 2000
# A client's name is its own claim, shown on the consent page as such: a plain name, nothing that reads
# as an address, a path or markup.
PLAIN_NAME = re.compile(rf"[^\W_][\w .,'’&()+!-]{{0,{MAX_CLIENT_NAME - 1}}}")


class Registration(ClientRegistrationEndpoint):
    """Open dynamic client registration (RFC 7591): any client may register; consent gates access."""

    def authenticate_token(self, request: JsonRequest) -> bool:
        return True

    def get_server_metadata(self) -> dict[str, object]:
        return self.server.metadata

    def extract_client_metadata(self, request: JsonRequest) -> dict[str, object]:
        """Refuse malformed metadata before authlib's own checks, which assume well-typed values."""
        data = request.payload.data
        uris = data.get("redirect_uris")
        if (
            not isinstance(uris, list)
            or not uris
            or len(uris) > MAX_REDIRECT_URIS
            or not all(isinstance(uri, str) and 0 < len(uri) <= 2000 for uri in uris)
        ):
            raise InvalidRedirectURIError(
                f"redirect_uris must be a list of 1 to {MAX_REDIRECT_URIS} URIs (strings)"
            )
        if any(char.isspace() or not char.isprintable() for uri in uris for char in uri):
            # a CR or LF would split the Location header the URI is sent back in; NUL breaks the store
            raise InvalidRedirectURIError(
                "redirect_uris must not hold spaces, line breaks or control characters"
            )
        for name, limit in SCALARS.items():
            value = data.get(name, "")
            if not (isinstance(value, str) and len(value) <= limit):
                raise InvalidClientMetadataError(
                    f"{name} must be a string of at most {limit} characters"
                )
        for name in LISTS:
            values = data.get(name, [])
            if not (
                isinstance(values, list)
                and len(values) <= MAX_LIST
                and all(isinstance(v, str) and len(v) <= MAX_LIST_ITEM for v in values)
            ):
                raise InvalidClientMetadataError(
                    f"{name} must be a list of at most {MAX_LIST} strings of at most "
                    f"{MAX_LIST_ITEM} characters"
                )
        client_name = data.get("client_name")
        if isinstance(client_name, str) and client_name and not PLAIN_NAME.fullmatch(client_name):
            raise InvalidClientMetadataError(
                f"client_name must be a plain name: 1 to {MAX_CLIENT_NAME} letters, digits, spaces "
                "and . , ' & ( ) + ! - _, starting with a letter or digit (the consent page shows it "
                "as what the client calls itself)"
            )
        for field, value in data.items():
            if field not in USED and len(json.dumps(value)) > MAX_UNUSED:
                raise InvalidClientMetadataError(
                    f"{field} is longer than {MAX_UNUSED:,} characters; Parley does not use it (it "
                    f"keeps only {', '.join(sorted(USED))}), so leave it out"
                )
        try:
            checked = super().extract_client_metadata(request)
        except (
            TypeError,
            AttributeError,
            ValueError,
        ):  # a value of a type authlib's own checks assume away
            raise InvalidClientMetadataError("the client metadata is malformed") from None
        return {field: value for field, value in checked.items() if field in USED}

    def generate_client_secret(self, request: JsonRequest) -> str | None:
        method = request.payload.data.get("token_endpoint_auth_method", "client_secret_basic")
        return None if method == "none" else secrets.token_urlsafe(32)

    def generate_client_info(self, request: JsonRequest) -> dict[str, object]:
        """A public client gets no secret at all: RFC 7591 omits the member rather than sending null."""
        info = super().generate_client_info(request)
        if info.get("client_secret") is None:
            info.pop("client_secret", None)
            info.pop("client_secret_expires_at", None)
        return info

    def save_client(
        self,
        client_info: dict[str, object],
        client_metadata: dict[str, object],
        request: JsonRequest,
    ) -> Client:
        uris = string_list(client_metadata.get("redirect_uris"))
        if not uris:
            raise InvalidRedirectURIError("at least one redirect_uri is required")
        for uri in uris:
            parts = urlsplit(uri)
            loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
            if parts.fragment or not (
                parts.scheme == "https" or (parts.scheme == "http" and loopback)
            ):
                raise InvalidRedirectURIError(
                    f"redirect_uri {uri} must be https, or http on a loopback address, without a fragment"
                )
        grant_types = string_list(client_metadata.get("grant_types")) or ["authorization_code"]
        unsupported = sorted(set(grant_types) - {"authorization_code", "refresh_token"})
        if unsupported:
            raise InvalidClientMetadataError(f"unsupported grant_types: {', '.join(unsupported)}")
        metadata = {**client_metadata, "grant_types": grant_types}
        metadata.setdefault("token_endpoint_auth_method", "client_secret_basic")
        metadata.setdefault("response_types", ["code"])
        client_id, secret, issued_at = (
            client_info.get(name) for name in ("client_id", "client_secret", "client_id_issued_at")
        )
        if not isinstance(client_id, str) or not isinstance(issued_at, int):
            # authlib made both: a client without them cannot be told apart, so none is saved
            raise InvalidClientMetadataError("the client could not be registered")
        secret_hash = digest(secret) if isinstance(secret, str) else None
        row = rows.add_client(self.server.store.db, client_id, secret_hash, metadata, issued_at)
        return Client(row)


class Revocation(RevocationEndpoint):
    """RFC 7009: a refresh or access token revokes its whole grant family."""

    CLIENT_AUTH_METHODS = AUTH_METHODS

    def query_token(self, token_string: str, token_type_hint: str | None) -> RefreshToken | None:
        store = self.server.store
        row = rows.refresh_token(store.db, digest(token_string))
        if row is not None:
            return RefreshToken(row)
        family = store.family_of_access_token(token_string)
        if family is not None:
            grant = store.family(family)
            if grant is not None:
                # an access token stands for its family: no refresh token row of its own
                return RefreshToken(
                    RefreshTokenRow(
                        family=family,
                        client_id=grant.client_id,
                        scope=grant.scope,
                        issued_at=0,
                        expires_at=0,
                        rotated_at=None,
                    )
                )
        return None

    def revoke_token(self, token: RefreshToken, request: OAuth2Request) -> None:
        self.server.store.revoke_family(token.row.family, "revoked by the client")
