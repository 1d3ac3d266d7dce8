"""The whole OAuth flow with the SDK's own client support, over real HTTP, through the real pages."""

from __future__ import annotations

import json

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.identity import principals as club_ops
from tests.access.test_e2e_lanes import MEMBER
from tests.conftest import tool_names
from tests.oauth_helpers import (
    REDIRECT_URI,
    Browser,
    MemoryStorage,
    oauth_provider,
    pkce,
    redeem,
    register,
)
from tests.store_dump import store_dump

STRICT = "?guest=no"  # this connection refuses the guest lane, so a missing credential is a 401


async def test_full_flow_discovery_to_revocation(club):
    storage = MemoryStorage()
    browser = Browser("bruno", club.tokens.passwords["bruno"])
    auth = oauth_provider(club.url + STRICT, browser, storage)
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        async with Client(
            streamable_http_client(club.url + STRICT, http_client=http), mode="legacy", cache=None
        ) as client:
            assert await tool_names(client) == MEMBER
            who = (await client.call_tool("whoami", {})).structured_content
            assert who["lane"] == "member" and who["credential"]["kind"] == "oauth"
            assert "OAuth access token of bruno's agent 'assistant'" in who["why"]
    assert "calls itself <q>Test agent host</q>" in browser.pages[1]
    first = storage.tokens
    assert first.refresh_token and first.access_token.count(".") == 2

    async with httpx2.AsyncClient(timeout=30) as http:
        meta = (await http.get(club.live.base + "/.well-known/oauth-authorization-server")).json()
        # refresh: a new pair, and the old refresh token is spent
        refreshed = await http.post(
            meta["token_endpoint"],
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token,
                "client_id": storage.client.client_id,
            },
        )
        assert refreshed.status_code == 200, refreshed.text
        second = refreshed.json()
        assert (
            second["refresh_token"] != first.refresh_token
            and second["access_token"] != first.access_token
        )

        headers = {"Authorization": f"Bearer {second['access_token']}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as authed:
            async with Client(
                streamable_http_client(club.url, http_client=authed), mode="auto", cache=None
            ) as client:
                assert await tool_names(client) == MEMBER

        revoked = await http.post(
            meta["revocation_endpoint"],
            data={"token": second["refresh_token"], "client_id": storage.client.client_id},
        )
        assert revoked.status_code == 200
        after = await http.post(
            club.url,
            headers={**headers, "Accept": "application/json, text/event-stream"},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert after.status_code == 401
        assert "grant was revoked" in after.json()["error_description"]


async def authorize(
    club,
    http,
    client_id: str,
    challenge: str | None,
    handle="bruno",
    scopes=None,
    resource: str | None = "default",
    method="S256",
) -> str:
    """Drive the pages by hand; returns the redirect Location."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": "st4te",
    }
    if challenge:
        params |= {"code_challenge": challenge, "code_challenge_method": method}
    if resource == "default":
        resource = club.url
    if resource:
        params["resource"] = resource
    browser = Browser(handle, club.tokens.passwords[handle], scopes=scopes)
    url = str(httpx2.URL(club.live.base + "/oauth/authorize", params=params))
    first = await http.get(url)
    if first.status_code == 302:  # refused before sign-in
        return first.headers["location"]
    location = await browser.visit(url)
    return location if location is not None else f"refused: {browser.refusal}"


def code_of(location: str) -> str:
    from urllib.parse import parse_qs, urlsplit

    query = parse_qs(urlsplit(location).query)
    assert "code" in query, location
    assert query["state"] == ["st4te"]
    return query["code"][0]


async def test_code_is_single_use_and_bound_to_verifier_and_redirect(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        wrong_verifier = await redeem(http, club.live.base, client["client_id"], code, pkce()[0])
        assert (
            wrong_verifier.status_code == 400 and wrong_verifier.json()["error"] == "invalid_grant"
        )

        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        wrong_redirect = await redeem(
            http,
            club.live.base,
            client["client_id"],
            code,
            verifier,
            redirect_uri="http://127.0.0.1:9/other",
        )
        assert (
            wrong_redirect.status_code == 400 and wrong_redirect.json()["error"] == "invalid_grant"
        )

        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        good = await redeem(http, club.live.base, client["client_id"], code, verifier)
        assert good.status_code == 200, good.text
        access = good.json()["access_token"]
        replay = await redeem(http, club.live.base, client["client_id"], code, verifier)
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
        # the replay revoked what the code had bought
        probe = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {access}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert (
            probe.status_code == 401
            and "authorization code replayed" in probe.json()["error_description"]
        )


@pytest.mark.parametrize("refused", ["foreign client", "wider scope"])
async def test_a_refused_refresh_leaves_the_grant_working(club, refused):
    """A refresh the token endpoint refuses (another client presents A's refresh token, or A asks for
    more than it was granted) spends nothing: A's next refresh, with the same token, succeeds."""
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        first = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()
        token_url = club.live.base + "/oauth/token"
        rotate = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
        if refused == "foreign client":
            other = await register(http, club.live.base)
            attempt = {**rotate, "client_id": other["client_id"]}
        else:
            attempt = {**rotate, "client_id": client["client_id"], "scope": "mandate:write"}
        bad = await http.post(token_url, data=attempt)
        assert bad.status_code in (400, 401) and bad.json()["error"] in (
            "invalid_grant",
            "invalid_scope",
        )
        again = await http.post(token_url, data={**rotate, "client_id": client["client_id"]})
        assert again.status_code == 200, again.text
        probe = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {again.json()['access_token']}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert probe.status_code != 401, probe.text  # the new access token is accepted at the gate


async def test_pkce_s256_is_required(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        missing = await authorize(club, http, client["client_id"], None)
        assert (
            "error=invalid_request" in missing
            and "PKCE" in httpx2.URL(missing).params["error_description"]
        )
        plain = await authorize(club, http, client["client_id"], "x" * 43, method="plain")
        assert "error=invalid_request" in plain


async def test_resource_must_be_this_server(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        _, challenge = pkce()
        sibling = await authorize(
            club, http, client["client_id"], challenge, resource=club.live.base + "/other-mcp"
        )
        assert "error=invalid_target" in sibling


async def test_refresh_reuse_revokes_the_whole_family(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        first = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()
        token_url = club.live.base + "/oauth/token"
        rotate = {"grant_type": "refresh_token", "client_id": client["client_id"]}
        second = (
            await http.post(token_url, data={**rotate, "refresh_token": first["refresh_token"]})
        ).json()
        reused = await http.post(
            token_url, data={**rotate, "refresh_token": first["refresh_token"]}
        )
        assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
        # the legitimate newest refresh token is dead too: the whole family went
        newest = await http.post(
            token_url, data={**rotate, "refresh_token": second["refresh_token"]}
        )
        assert newest.status_code == 400
        probe = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {second['access_token']}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert (
            probe.status_code == 401 and "refresh token reused" in probe.json()["error_description"]
        )


async def test_consent_never_grants_beyond_the_mandate(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        _, challenge = pkce()
        refused = await authorize(
            club,
            http,
            client["client_id"],
            challenge,
            handle="carla",
            scopes=["club:read", "directory:read"],
        )
        assert (
            refused.startswith("refused: 400")
            and "Your mandate does not grant directory:read" in refused
        )
        _, challenge = pkce()
        refused = await authorize(
            club, http, client["client_id"], challenge, handle="carla", scopes=["mandate:write"]
        )
        assert refused.startswith("refused: 400") and "does not grant mandate:write" in refused
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge, handle="carla"))
        token = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()
        assert set(token["scope"].split()) == {
            "club:read",
            "evidence:write",
            "inbox:read",
            "questions:ask",
        }


async def test_insufficient_scope_is_a_403_naming_the_scope(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(
            await authorize(club, http, client["client_id"], challenge, scopes=["club:read"])
        )
        access = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()[
            "access_token"
        ]
        headers = {
            "Authorization": f"Bearer {access}",
            "Accept": "application/json, text/event-stream",
        }
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_directory", "arguments": {}},
        }
        response = await http.post(club.url, headers=headers, json=call)
        assert response.status_code == 403
        challenge_header = response.headers["www-authenticate"]
        assert (
            'error="insufficient_scope"' in challenge_header
            and 'scope="directory:read"' in challenge_header
        )


async def test_agent_revoked_after_grant_is_refused(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        access = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()[
            "access_token"
        ]
        db = club.db()
        club_ops.revoke_agent(db, "bruno", "assistant")
        db.close()
        probe = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {access}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert probe.status_code == 401 and "was revoked" in probe.json()["error_description"]


async def test_no_token_is_stored_in_clear(club):
    storage = MemoryStorage()
    auth = oauth_provider(
        club.url + STRICT, Browser("bruno", club.tokens.passwords["bruno"]), storage
    )
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
        async with Client(
            streamable_http_client(club.url + STRICT, http_client=http), mode="legacy", cache=None
        ) as c:
            await c.list_tools()
    dump = store_dump(club.db(), club.settings.db_path.parent)
    assert storage.tokens.access_token.encode() not in dump
    assert storage.tokens.refresh_token.encode() not in dump
    assert storage.tokens.refresh_token[4:].encode() not in dump
    assert club.tokens.passwords["bruno"].encode() not in dump


async def test_guest_no_without_credential_is_a_401_with_resource_metadata(club):
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            club.url + STRICT,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{club.live.base}/.well-known/oauth-protected-resource/mcp"'
        )
        plain = await http.post(
            club.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert plain.headers["parley-lane"] == "guest"


async def test_registration_secrets_only_for_confidential_clients(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        public = await register(http, club.live.base)
        assert "client_secret" not in public and public["token_endpoint_auth_method"] == "none"
        confidential = await register(
            http, club.live.base, token_endpoint_auth_method="client_secret_post"
        )
        assert len(confidential["client_secret"]) >= 32
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, confidential["client_id"], challenge))
        no_secret = await redeem(http, club.live.base, confidential["client_id"], code, verifier)
        assert no_secret.status_code == 401 and no_secret.json()["error"] == "invalid_client"
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, confidential["client_id"], challenge))
        with_secret = await redeem(
            http,
            club.live.base,
            confidential["client_id"],
            code,
            verifier,
            client_secret=confidential["client_secret"],
        )
        assert with_secret.status_code == 200, with_secret.text
        db = club.db()
        stored = db.execute(
            "SELECT secret_hash FROM oauth_clients WHERE client_id = ?", [confidential["client_id"]]
        ).fetchone()[0]
        db.close()
        assert (
            stored != confidential["client_secret"] and confidential["client_secret"] not in stored
        )


@pytest.mark.parametrize(
    "metadata, fragment",
    [
        ({"redirect_uris": ["http://evil.example/cb"]}, "must be https"),
        ({"redirect_uris": ["https://ok.example/cb#frag"]}, "redirect_uris"),
        ({"redirect_uris": []}, "redirect_uri"),
        ({"grant_types": ["client_credentials"]}, "grant_types"),
        # metadata Parley does not use, sent long: refused, saying what is kept
        ({"contacts": ["admin@example.org" * 4] * 900}, "contacts is longer than 2,000 characters"),
        ({"software_statement": "x" * 3000}, "software_statement is longer than 2,000"),
        # what it uses, each bounded
        ({"scope": "club:read " * 100}, "scope must be a string of at most 500 characters"),
        ({"grant_types": ["authorization_code"] * 6}, "grant_types must be a list of at most 5"),
        # a client's name is a plain name: the consent page shows it as the client's own claim
        ({"client_name": "https://club.example/official"}, "client_name must be a plain name"),
        ({"client_name": "<b>Parley</b>"}, "client_name must be a plain name"),
        ({"client_name": "Parley\u202eofficial"}, "client_name must be a plain name"),
        ({"client_name": "a" * 65}, "client_name must be a string of at most 64"),
    ],
)
async def test_registration_refuses_unsafe_clients(club, metadata, fragment):
    async with httpx2.AsyncClient(timeout=30) as http:
        body = {
            "client_name": "x",
            "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none",
            **metadata,
        }
        response = await http.post(club.live.base + "/oauth/register", json=body)
        assert response.status_code == 400 and fragment in response.text


async def test_registration_keeps_only_the_metadata_parley_uses(club):
    """Short metadata Parley does not use is dropped: neither stored nor sent back as registered."""
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(
            http, club.live.base, contacts=["ops@example.org"], client_uri="https://example.org"
        )
    assert (
        client["client_name"] == "raw" and "contacts" not in client and "client_uri" not in client
    )
    db = club.db()
    stored = db.execute(
        "SELECT metadata FROM oauth_clients WHERE client_id = ?", [client["client_id"]]
    ).fetchone()[0]
    db.close()
    assert "contacts" not in json.loads(stored) and "client_uri" not in json.loads(stored)


async def test_the_consent_page_alone_may_send_its_form_to_the_clients_redirect_origin(club):
    """Its form is answered with a redirect to the client, which form-action must allow: that origin,
    beside this site; and the client's name reads as its own claim, beside the host it goes back to."""
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base, client_name="Ana's helper")
        _, challenge = pkce()
        browser = Browser("bruno", club.tokens.passwords["bruno"])
        query = {
            "response_type": "code",
            "client_id": client["client_id"],
            "redirect_uri": REDIRECT_URI,
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": club.url,
        }
        url = str(httpx2.URL(club.live.base + "/oauth/authorize", params=query))
        await browser.visit(url)
    consent = browser.responses[-1]
    redirect = httpx2.URL(REDIRECT_URI)
    origin = f"{redirect.scheme}://{redirect.netloc.decode()}"
    assert f"form-action 'self' {origin};" in consent.headers["content-security-policy"]
    assert f"<code>{redirect.netloc.decode()}</code>" in consent.text
    assert "calls itself <q>Ana&#39;s helper</q>" in consent.text


async def test_revoking_an_access_token_revokes_its_whole_family(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        pair = (await redeem(http, club.live.base, client["client_id"], code, verifier)).json()
        revoked = await http.post(
            club.live.base + "/oauth/revoke",
            data={
                "token": pair["access_token"],
                "token_type_hint": "access_token",
                "client_id": client["client_id"],
            },
        )
        assert revoked.status_code == 200
        probe = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {pair['access_token']}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert probe.status_code == 401
        assert "grant was revoked (revoked by the client)" in probe.json()["error_description"]
        refreshed = await http.post(
            club.live.base + "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": pair["refresh_token"],
                "client_id": client["client_id"],
            },
        )
        assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"


async def test_the_code_is_bound_to_the_resource_it_was_asked_for(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        other = await redeem(
            http,
            club.live.base,
            client["client_id"],
            code,
            verifier,
            resource=club.live.base + "/other-mcp",
        )
        assert other.status_code == 400 and other.json()["error"] == "invalid_request"
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        same = await redeem(
            http, club.live.base, client["client_id"], code, verifier, resource=club.url
        )
        assert same.status_code == 200, same.text


async def test_registration_refuses_an_overlong_redirect_uri_and_defaults_to_the_code_flow(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        long_uri = "http://127.0.0.1:9/" + "a" * 2000
        refused = await http.post(
            club.live.base + "/oauth/register",
            json={
                "client_name": "raw",
                "redirect_uris": [long_uri],
                "token_endpoint_auth_method": "none",
            },
        )
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_redirect_uri"
        client = await register(http, club.live.base)
    db = club.db()
    stored = json.loads(
        db.execute(
            "SELECT metadata FROM oauth_clients WHERE client_id = ?", [client["client_id"]]
        ).fetchone()[0]
    )
    db.close()
    assert stored["response_types"] == ["code"] and stored["token_endpoint_auth_method"] == "none"
