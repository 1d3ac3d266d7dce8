"""HTTP endpoints of the embedded authorization server: metadata, registration, authorize, token,
revocation and JWKS, plus the consent page where a principal picks the agent and the scopes."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlencode, urlsplit

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from server.access import grantable_scopes, lane_of
from server.http.ratelimit import budget, retry_after_header
from server.identity import mandates
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.oauth.authlib_api import AuthorizationCodeGrant, OAuth2Error
from server.oauth.authorization import (
    BodyJsonRequest,
    FormRequest,
    Grantee,
    ParleyAuthorizationServer,
    canonical_resource,
)
from server.store import agents as agent_rows
from server.store import principals as principal_rows
from server.store.agents import AgentRow
from server.web.pages import Pages, csp_sending_forms_to

MAX_BODY = 64 * 1024
REGISTRATIONS_PER_MINUTE = 30  # a client registers once; a burst is someone filling the table


def server_metadata(issuer: str, manifest: Manifest) -> dict[str, object]:
    """RFC 8414 authorization server metadata."""
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "registration_endpoint": f"{issuer}/oauth/register",
        "revocation_endpoint": f"{issuer}/oauth/revoke",
        "jwks_uri": f"{issuer}/oauth/jwks",
        "scopes_supported": sorted(manifest.agent_scopes),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": [
            "none",
            "client_secret_basic",
            "client_secret_post",
        ],
        "revocation_endpoint_auth_methods_supported": [
            "none",
            "client_secret_basic",
            "client_secret_post",
        ],
        "code_challenge_methods_supported": ["S256"],
    }


def _oauth_error(error: OAuth2Error) -> JSONResponse:
    body = {"error": error.error}
    if error.description:
        body["error_description"] = error.description
    return JSONResponse(
        body, status_code=error.status_code or 400, headers={"Cache-Control": "no-store"}
    )


class AuthorizationPages:
    def __init__(
        self,
        server: ParleyAuthorizationServer,
        pages: Pages,
        manifest: Manifest,
        key: SigningKey,
        resource: str,
    ):
        self.server = server
        self.pages = pages
        self.manifest = manifest
        self.key = key
        self.resource = canonical_resource(resource)
        self.register_limiter = budget(pages.db, REGISTRATIONS_PER_MINUTE, "register")

    async def _form_request(self, request: Request) -> FormRequest:
        body = await request.body()
        if len(body) > MAX_BODY:
            raise OAuth2Error(error="invalid_request", description="request body too large")
        form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        return FormRequest(
            request.method,
            str(request.url),
            dict(request.headers),
            dict(request.query_params),
            form,
        )

    async def metadata(self, request: Request) -> Response:
        return JSONResponse(self.server.metadata, headers={"Cache-Control": "public, max-age=300"})

    async def jwks(self, request: Request) -> Response:
        return JSONResponse(
            self.server.store.ring.jwks(), headers={"Cache-Control": "public, max-age=60"}
        )

    async def register(self, request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        wait = await anyio.to_thread.run_sync(self.register_limiter.take, f"register:{client}")
        if wait is not None:
            seconds = retry_after_header(wait)
            return JSONResponse(
                {
                    "error": "rate_limited",
                    "error_description": f"too many registrations from this "
                    f"address; retry after {seconds} second(s)",
                },
                429,
                headers={"Retry-After": seconds},
            )
        body = await request.body()
        try:
            data = json.loads(body) if len(body) <= MAX_BODY else None
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            return JSONResponse(
                {
                    "error": "invalid_client_metadata",
                    "error_description": "the body must be a JSON object",
                },
                400,
            )
        oauth_request = BodyJsonRequest(
            request.method, str(request.url), dict(request.headers), data
        )
        return self.server.create_endpoint_response("client_registration", oauth_request)

    async def token(self, request: Request) -> Response:
        try:
            oauth_request = await self._form_request(request)
        except OAuth2Error as error:
            return _oauth_error(error)
        return self.server.create_token_response(oauth_request)

    async def revoke(self, request: Request) -> Response:
        try:
            oauth_request = await self._form_request(request)
        except OAuth2Error as error:
            return _oauth_error(error)
        return self.server.create_endpoint_response("revocation", oauth_request)

    # --- authorize: validate, sign in, consent ------------------------------------------------

    def _validate(
        self, query: dict[str, str], method: str, url: str, headers: dict[str, str]
    ) -> tuple[FormRequest, AuthorizationCodeGrant]:
        if any(
            not isinstance(value, str) or not value.isprintable() or len(value) > 2000
            for value in query.values()
        ):
            raise OAuth2Error(
                error="invalid_request",
                description="the request holds characters or lengths no OAuth request carries",
            )
        if not query.get("redirect_uri"):
            # the code is bound to the redirect URI it was issued for (OAuth 2.1 requires the parameter)
            raise OAuth2Error(error="invalid_request", description="redirect_uri is required")
        oauth_request = FormRequest(method, url, headers, query, {})
        try:
            grant = self.server.get_consent_grant(oauth_request)
        except OAuth2Error:
            raise
        except ValueError:  # authlib refuses to quote some input back in an error description
            raise OAuth2Error(
                error="invalid_request", description="the request is malformed"
            ) from None
        return oauth_request, grant

    def _error_redirect(
        self, redirect_uri: str, error: str, description: str, state: str | None
    ) -> Response:
        params = {"error": error, "error_description": description}
        if state:
            params["state"] = state
        glue = "&" if urlsplit(redirect_uri).query else "?"
        return RedirectResponse(redirect_uri + glue + urlencode(params), status_code=302)

    def _failed(
        self, request: Request, error: OAuth2Error, oauth_request: FormRequest | None
    ) -> Response:
        redirect_uri = getattr(error, "redirect_uri", None)
        if redirect_uri:
            return self._error_redirect(
                redirect_uri,
                error.error,
                error.description or error.error,
                getattr(error, "state", None),
            )
        return self.pages.error(
            request,
            "Authorization refused",
            f"{error.error}: {error.description or ''}".strip(": "),
        )

    def grantable(self, principal_id: int) -> list[str]:
        """Scopes this principal may hand an agent now: mandate ∩ lane ceiling ∩ agent scopes."""
        lane = lane_of(principal_rows.status_of(self.pages.db, principal_id))
        mandate = mandates.current(self.pages.db, self.key, principal_id)
        return sorted(grantable_scopes(self.manifest, lane, mandate.scopes))

    def _agents(self, principal_id: int) -> list[AgentRow]:
        return agent_rows.of_principal(self.pages.db, principal_id, active_only=True)

    def _resource_of(self, query: dict[str, str]) -> str | None:
        requested = query.get("resource")
        if requested is None:
            return self.resource
        return self.resource if canonical_resource(requested) == self.resource else None

    async def authorize_page(self, request: Request) -> Response:
        query = dict(request.query_params)
        try:
            oauth_request, grant = self._validate(
                query, "GET", str(request.url), dict(request.headers)
            )
        except OAuth2Error as error:
            return self._failed(request, error, None)
        redirect_uri = grant.redirect_uri
        if self._resource_of(query) is None:
            return self._error_redirect(
                redirect_uri,
                "invalid_target",
                f"this server only issues tokens for {self.resource}",
                query.get("state"),
            )
        principal_id = self.pages.principal_id(request)
        if principal_id is None:
            return RedirectResponse(
                "/signin?" + urlencode({"next": f"/oauth/authorize?{request.url.query}"}),
                status_code=303,
            )
        return self._consent(request, principal_id, grant, query, error=None)

    def _consent(
        self,
        request: Request,
        principal_id: int,
        grant: AuthorizationCodeGrant,
        query: dict[str, str],
        error: str | None,
        status: int = 200,
    ) -> Response:
        client = grant.request.client
        principal = principal_rows.by_id(self.pages.db, principal_id)
        handle = principal.handle if principal else ""
        requested = set((query.get("scope") or "").split())
        grantable = self.grantable(principal_id)
        redirect = urlsplit(grant.redirect_uri)
        return self.pages.render(
            request,
            "consent.html",
            status_code=status,
            csrf=self.pages.csrf(request),
            query=urlencode(query),
            csp=csp_sending_forms_to(f"{redirect.scheme}://{redirect.netloc}"),
            client_name=client.name,
            redirect_host=redirect.netloc,
            handle=handle,
            agents=self._agents(principal_id),
            grantable=grantable,
            requested=requested or set(grantable),
            descriptions={name: decl.description for name, decl in self.manifest.scopes.items()},
            error=error,
        )

    async def authorize(self, request: Request) -> Response:
        form = await request.form()
        if not self.pages.csrf_ok(request, form):
            return self.pages.error(
                request,
                "Authorization refused",
                "The form expired or came from another site; start again.",
                403,
            )
        principal_id = self.pages.principal_id(request)
        if principal_id is None:
            return RedirectResponse("/signin", status_code=303)
        query = dict(parse_qsl(str(form.get("query", "")), keep_blank_values=True))
        try:
            oauth_request, grant = self._validate(
                query, "GET", str(request.url), dict(request.headers)
            )
        except OAuth2Error as error:
            return self._failed(request, error, None)
        resource = self._resource_of(query)
        if resource is None:
            return self._error_redirect(
                grant.redirect_uri,
                "invalid_target",
                f"this server only issues tokens for {self.resource}",
                query.get("state"),
            )
        if form.get("decision") != "approve":
            return self.server.create_authorization_response(
                oauth_request, grant_user=None, grant=grant
            )
        agents = {str(agent.id): agent for agent in self._agents(principal_id)}
        agent = agents.get(str(form.get("agent", "")))
        chosen = sorted({value for value in form.getlist("scope") if isinstance(value, str)})
        grantable = set(self.grantable(principal_id))
        if agent is None:
            return self._consent(
                request, principal_id, grant, query, "Choose one of your active agents.", 400
            )
        if not chosen:
            return self._consent(
                request, principal_id, grant, query, "Tick at least one scope, or deny.", 400
            )
        if not set(chosen) <= grantable:
            beyond = ", ".join(sorted(set(chosen) - grantable))
            return self._consent(
                request, principal_id, grant, query, f"Your mandate does not grant {beyond}.", 400
            )
        grantee = Grantee(principal_id, agent.id, " ".join(chosen), family="", resource=resource)
        return self.server.create_authorization_response(
            oauth_request, grant_user=grantee, grant=grant
        )

    def routes(self) -> list[Route]:
        return [
            Route("/.well-known/oauth-authorization-server", self.metadata, methods=["GET"]),
            Route("/oauth/jwks", self.jwks, methods=["GET"]),
            Route("/oauth/register", self.register, methods=["POST"]),
            Route("/oauth/token", self.token, methods=["POST"]),
            Route("/oauth/revoke", self.revoke, methods=["POST"]),
            Route("/oauth/authorize", self.authorize_page, methods=["GET"]),
            Route("/oauth/authorize", self.authorize, methods=["POST"]),
        ]
