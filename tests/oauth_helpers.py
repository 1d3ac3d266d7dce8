"""A person at the browser, for OAuth tests: signs in and consents through the real pages over HTTP."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from html import unescape
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

REDIRECT_URI = "http://127.0.0.1:9/callback"  # never contacted: the browser stops at the redirect


def hidden(html: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert match, f"no hidden field {name} in page"
    return unescape(match.group(1))


class Browser:
    """Follows the authorization URL: sign-in page, consent page, redirect with the code."""

    def __init__(
        self,
        handle: str,
        password: str,
        scopes: list[str] | None = None,
        agent: str | None = None,
        decision: str = "approve",
    ):
        self.handle = handle
        self.password = password
        self.scopes = scopes
        self.agent = agent
        self.decision = decision
        self.redirect: str | None = None
        self.refusal: str | None = None  # the consent page's answer when it did not redirect
        self.pages: list[str] = []
        self.responses: list[httpx2.Response] = []  # the pages' whole answers, headers too

    async def visit(self, authorization_url: str) -> str | None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as http:
            page = await http.get(authorization_url)
            assert page.status_code == 303, page.text
            signin = await http.get(urljoin(authorization_url, page.headers["location"]))
            self.pages.append(signin.text)
            self.responses.append(signin)
            assert "Sign in" in signin.text
            posted = await http.post(
                urljoin(authorization_url, "/signin"),
                data={
                    "csrf": hidden(signin.text, "csrf"),
                    "next": hidden(signin.text, "next"),
                    "handle": self.handle,
                    "password": self.password,
                },
            )
            assert posted.status_code == 303, posted.text
            consent = await http.get(urljoin(authorization_url, posted.headers["location"]))
            self.pages.append(consent.text)
            self.responses.append(consent)
            assert consent.status_code == 200, consent.text
            agents = re.findall(r'<option value="(\d+)">([^<]*)</option>', consent.text)
            agent_id = next(value for value, name in agents if self.agent in (None, name))
            offered = re.findall(r'name="scope" value="([^"]+)"( checked)?', consent.text)
            scopes = (
                self.scopes if self.scopes is not None else [s for s, checked in offered if checked]
            )
            answer = await http.post(
                urljoin(authorization_url, "/oauth/authorize"),
                data={
                    "csrf": hidden(consent.text, "csrf"),
                    "query": hidden(consent.text, "query"),
                    "agent": agent_id,
                    "scope": scopes,
                    "decision": self.decision,
                },
            )
            if answer.status_code != 302:
                self.refusal = f"{answer.status_code} {answer.text}"
                return None
            self.redirect = answer.headers["location"]
            return self.redirect

    def result(self) -> AuthorizationCodeResult:
        assert self.redirect is not None
        query = parse_qs(urlsplit(self.redirect).query)
        if "error" in query:
            raise RuntimeError(f"authorization failed: {query['error'][0]}")
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def oauth_provider(
    server_url: str, browser: Browser, storage: MemoryStorage | None = None
) -> OAuthClientProvider:
    async def redirect_handler(url: str) -> None:
        await browser.visit(url)

    async def callback_handler() -> AuthorizationCodeResult:
        return browser.result()

    return OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(
            client_name="Test agent host",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage or MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )


# --- an OAuth access token through the real pages -----------------------------------------------


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )
    return verifier, challenge


async def register(http: httpx2.AsyncClient, base: str, **extra) -> dict:
    response = await http.post(
        base + "/oauth/register",
        json={
            "client_name": "raw",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
            **extra,
        },
    )
    assert response.status_code == 201, response.text
    return response.json()


async def redeem(http, base, client_id, code, verifier, redirect_uri=REDIRECT_URI, **extra):
    return await http.post(
        base + "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            **extra,
        },
    )


def authorize_query(
    client_id: str, challenge: str, resource: str, state: str = "tests"
) -> dict[str, str]:
    """The query of an authorization-code request with PKCE (S256) to the test redirect URI."""
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": resource,
    }


async def oauth_access_token(base: str, resource: str, handle: str, password: str) -> dict:
    """Register a public client, sign in and consent as `handle`, redeem the code: the token response."""
    async with httpx2.AsyncClient(timeout=30) as http:
        client_id = (await register(http, base))["client_id"]
        verifier, challenge = pkce()
        params = authorize_query(client_id, challenge, resource)
        browser = Browser(handle, password)
        location = await browser.visit(str(httpx2.URL(base + "/oauth/authorize", params=params)))
        assert location, browser.refusal
        code = parse_qs(urlsplit(location).query)["code"][0]
        token = await redeem(http, base, client_id, code, verifier)
        assert token.status_code == 200, token.text
        return {**token.json(), "client_id": client_id}
