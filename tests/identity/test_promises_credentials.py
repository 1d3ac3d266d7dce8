"""Promises the mutation run found unguarded: a credential that is not Parley's, or an empty header,
is refused (never the guest lane), and an applicant's own token is capped by the applicant lane."""

from __future__ import annotations

import httpx2
import pytest

from server.access import Access
from server.identity import principals as club_ops
from server.identity import tokens
from server.identity.credentials import CredentialRejected
from server.identity.resolver import Resolver
from tests.conftest import connect

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}
APPLICANT_AGENT_SCOPES = ["club:read", "evidence:write", "inbox:read", "questions:ask"]

# Tokens of other services an agent might send by mistake: none starts with pa_ and none is a JWT.
FOREIGN = [
    "ghp_notaparleytoken",
    "sk-live-0123456789abcdef",
    "xoxb-123-456-abc",
    "notatoken",
    "pa",
    "a.b",
]


async def post(url: str, headers: dict[str, str]) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url, json=INIT, headers={**ACCEPT, **headers})


def assert_refused(club, response: httpx2.Response, reason: str) -> None:
    assert response.status_code == 401, (response.status_code, response.text)
    assert "parley-lane" not in response.headers
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token"')
    assert (
        f'resource_metadata="{club.live.base}/.well-known/oauth-protected-resource/mcp"'
        in challenge
    )
    assert response.json()["error"] == "invalid_token"
    assert reason in response.json()["error_description"]


@pytest.mark.parametrize("token", FOREIGN)
async def test_a_token_that_is_not_parleys_is_a_401_not_a_guest(club, token):
    response = await post(club.url, {"Authorization": f"Bearer {token}"})
    assert_refused(club, response, "unknown token")


async def test_an_empty_authorization_header_is_a_401_not_no_credential(club):
    response = await post(club.url, {"Authorization": ""})
    assert_refused(club, response, "malformed Authorization header")


async def test_no_header_is_still_the_guest_lane(club):
    response = await post(club.url, {})
    assert response.status_code == 200 and response.headers["parley-lane"] == "guest"


def test_the_resolver_refuses_foreign_tokens(club):
    db = club.db()
    manifest = club.manifest()
    resolver = Resolver(db, club.key(), frozenset(manifest.scopes))
    try:
        for token in FOREIGN:
            with pytest.raises(CredentialRejected, match="unknown token"):
                resolver.from_header(f"Bearer {token}")
            with pytest.raises(CredentialRejected, match="unknown token"):
                Access(manifest, resolver).from_header(f"Bearer {token}")
    finally:
        db.close()


def _carlas_principal_token(club) -> str:
    db = club.db()
    carla = club_ops.find_principal(db, "carla")
    minted = tokens.mint(
        db, principal_id=carla.id, agent_id=None, scopes=frozenset(club.manifest().scopes)
    )
    db.close()
    return minted.token


async def test_an_applicants_own_token_is_capped_by_the_applicant_lane(club):
    token = _carlas_principal_token(club)
    async with connect(club.url, token) as carla:
        who = (await carla.call_tool("whoami", {})).structured_content
        names = [tool.name for tool in (await carla.list_tools()).tools]
    assert who["lane"] == "applicant"
    assert who["effective_scopes"] == sorted(APPLICANT_AGENT_SCOPES + ["mandate:write"])
    assert (
        "directory:read" not in who["effective_scopes"]
        and "briefing:write" not in who["effective_scopes"]
    )
    assert "search_directory" not in names and "view_member" not in names
    assert "update_briefing" not in names and "list_briefing" not in names


def test_an_applicants_own_token_is_capped_in_the_access_stage(club):
    token = _carlas_principal_token(club)
    db = club.db()
    manifest = club.manifest()
    try:
        caller = Access(manifest, Resolver(db, club.key(), frozenset(manifest.scopes))).from_header(
            f"Bearer {token}"
        )
    finally:
        db.close()
    assert caller.credential == "principal_token" and caller.lane == "applicant"
    assert caller.scopes == manifest.ceiling("applicant")
    assert caller.scopes == frozenset(APPLICANT_AGENT_SCOPES + ["mandate:write"])


async def test_an_oauth_token_spends_its_own_budget_not_its_addresss_guest_budget(tmp_path):
    """Requests with a verified OAuth access token count against that token, like any other token:
    a client behind a busy address (or sharing it with guests) is not held to the guest budget."""
    from tests.conftest import manifest_copy, running_club
    from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register

    manifest = manifest_copy(
        tmp_path,
        lambda text: text.replace("guest_requests_per_minute: 120", "guest_requests_per_minute: 2"),
    )
    with running_club(tmp_path, manifest) as club:
        async with httpx2.AsyncClient(timeout=30) as http:
            client = await register(http, club.live.base)
            verifier, challenge = pkce()
            code = code_of(await authorize(club, http, client["client_id"], challenge))
            issued = await redeem(http, club.live.base, client["client_id"], code, verifier)
            assert issued.status_code == 200, issued.text
            bearer = {**ACCEPT, "Authorization": f"Bearer {issued.json()['access_token']}"}
            with_token = [
                (await http.post(club.url, json=INIT, headers=bearer)).status_code for _ in range(4)
            ]
            as_guest = [
                (await http.post(club.url, json=INIT, headers=ACCEPT)).status_code for _ in range(3)
            ]
    assert with_token == [200, 200, 200, 200]
    assert as_guest == [200, 200, 429]  # the address's guest budget was still whole
