"""authlib, typed where Parley meets it: the one module of `server.oauth` that imports authlib.

authlib ships no type information (no py.typed, no stubs on PyPI), so to mypy each of its classes
is `Any`, and a class built on `Any` hides its every override and call from the checker. At run
time this module is authlib's own classes; under type checking it declares the part of authlib
that Parley subclasses, calls and reads, with the types authlib's code gives them (1.9): what
authlib sets on a request (its client, its user, its code) is Parley's own models, because this
server registers only Parley's grants and endpoints. Anything new taken from authlib is declared
here first, so the rest of the package stays checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.responses import Response

    from server.oauth.models import AuthorizationCode, Client, Grantee, OAuthStore

    class OAuth2Error(Exception):
        error: str  # each of authlib's errors names its own; Parley's always pass one
        description: str | None
        status_code: int | None
        state: str | None
        redirect_uri: str | None

        def __init__(
            self,
            description: str | None = None,
            uri: str | None = None,
            status_code: int | None = None,
            state: str | None = None,
            redirect_uri: str | None = None,
            redirect_fragment: bool = False,
            error: str | None = None,
        ) -> None: ...

    class InvalidRequestError(OAuth2Error): ...

    class InvalidRedirectURIError(OAuth2Error): ...

    class InvalidClientMetadataError(OAuth2Error): ...

    class OAuth2Payload:
        @property
        def data(self) -> dict[str, str]: ...
        @property
        def redirect_uri(self) -> str | None: ...

    class BasicOAuth2Payload(OAuth2Payload):
        def __init__(self, payload: dict[str, str]) -> None: ...

    class OAuth2Request:
        method: str
        uri: str
        headers: dict[str, str]
        payload: OAuth2Payload
        client: Client  # set by authlib once the client authenticated
        user: Grantee  # the consent's decision (create_authorization_response's grant_user)
        authorization_code: AuthorizationCode  # set by the code grant once the code is found

        def __init__(
            self, method: str, uri: str, body: None = None, headers: dict[str, str] | None = None
        ) -> None: ...
        @property
        def args(self) -> dict[str, str]: ...
        @property
        def form(self) -> dict[str, str]: ...

    class JsonPayload:
        @property
        def data(self) -> dict[str, object]: ...

    class JsonRequest:
        method: str
        uri: str
        headers: dict[str, str]
        payload: JsonPayload

        def __init__(
            self, method: str, uri: str, headers: dict[str, str] | None = None
        ) -> None: ...

    class AuthorizationServer:
        # kept by Parley's server (`ParleyAuthorizationServer`), read by its grants and endpoints
        store: OAuthStore
        metadata: dict[str, object]

        def __init__(self, scopes_supported: list[str] | None = None) -> None: ...
        def register_grant(
            self, grant_cls: type[BaseGrant], extensions: list[CodeChallenge] | None = None
        ) -> None: ...
        def register_endpoint(self, endpoint: type[Endpoint]) -> None: ...
        def register_token_generator(
            self, grant_type: str, func: Callable[..., dict[str, object]]
        ) -> None: ...
        def get_consent_grant(
            self, request: OAuth2Request | None = None, end_user: Grantee | None = None
        ) -> AuthorizationCodeGrant: ...
        # authlib answers through `handle_response`, which Parley's server turns into Starlette's
        def create_endpoint_response(
            self, name: str, request: OAuth2Request | JsonRequest | None = None
        ) -> Response: ...
        def create_authorization_response(
            self,
            request: OAuth2Request | None = None,
            grant_user: Grantee | None = None,
            grant: AuthorizationCodeGrant | None = None,
        ) -> Response: ...
        def create_token_response(self, request: OAuth2Request | None = None) -> Response: ...

    class BaseGrant:
        TOKEN_ENDPOINT_AUTH_METHODS: list[str]
        request: OAuth2Request
        server: AuthorizationServer
        redirect_uri: str

    class AuthorizationCodeGrant(BaseGrant): ...

    class RefreshTokenGrant(BaseGrant):
        INCLUDE_NEW_REFRESH_TOKEN: bool

    class CodeChallenge:
        SUPPORTED_CODE_CHALLENGE_METHOD: list[str]

        def __init__(self, required: bool = True) -> None: ...
        def validate_code_challenge(
            self, grant: AuthorizationCodeGrant, redirect_uri: str
        ) -> None: ...
        def validate_code_verifier(self, grant: AuthorizationCodeGrant, result: object) -> None: ...

    class Endpoint:
        server: AuthorizationServer

    class ClientRegistrationEndpoint(Endpoint):
        def extract_client_metadata(self, request: JsonRequest) -> dict[str, object]: ...
        def generate_client_info(self, request: JsonRequest) -> dict[str, object]: ...

    class RevocationEndpoint(Endpoint):
        CLIENT_AUTH_METHODS: list[str]
else:
    from authlib.oauth2 import OAuth2Error
    from authlib.oauth2.rfc6749 import AuthorizationServer
    from authlib.oauth2.rfc6749.errors import InvalidRequestError
    from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant, BaseGrant, RefreshTokenGrant
    from authlib.oauth2.rfc6749.requests import (
        BasicOAuth2Payload,
        JsonPayload,
        JsonRequest,
        OAuth2Payload,
        OAuth2Request,
    )
    from authlib.oauth2.rfc7009 import RevocationEndpoint
    from authlib.oauth2.rfc7591 import (
        ClientRegistrationEndpoint,
        InvalidClientMetadataError,
        InvalidRedirectURIError,
    )
    from authlib.oauth2.rfc7636 import CodeChallenge

    Endpoint = object  # only ever named in annotations

__all__ = [
    "AuthorizationCodeGrant",
    "AuthorizationServer",
    "BaseGrant",
    "BasicOAuth2Payload",
    "ClientRegistrationEndpoint",
    "CodeChallenge",
    "Endpoint",
    "InvalidClientMetadataError",
    "InvalidRedirectURIError",
    "InvalidRequestError",
    "JsonPayload",
    "JsonRequest",
    "OAuth2Error",
    "OAuth2Payload",
    "OAuth2Request",
    "RefreshTokenGrant",
    "RevocationEndpoint",
]
