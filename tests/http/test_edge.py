"""Parley attacked from outside, on both stores (issue 31): control characters, malformed OAuth
requests, redirect targets, password guessing. Each bad input gets a clear 4xx or tool error and
changes nothing; none reaches a 500."""

from __future__ import annotations

import base64
import logging
import re
from urllib.parse import urlencode

import anyio
import httpx2
import pytest

from server.web.pages import ACCOUNT_ATTEMPTS_PER_MINUTE
from tests.conftest import connect, running_club
from tests.console_helpers import ConsoleUser, csrf_of
from tests.oauth_helpers import REDIRECT_URI, authorize_query, hidden, pkce, register

NUL = "\x00"


def poisoned_arguments(schema: dict) -> list[dict]:
    """One argument object per string field of a tool's inputSchema (lists of strings too), that field
    holding a NUL and a bell: every other field is left out, so only validation can answer."""
    found = []
    for name, spec in (schema.get("properties") or {}).items():
        kinds = [spec, *spec.get("anyOf", [])]
        if any(kind.get("type") == "string" for kind in kinds):
            found.append({name: f"a{NUL}b\x07"})
        elif any(
            kind.get("type") == "array" and (kind.get("items") or {}).get("type") == "string"
            for kind in kinds
        ):
            found.append({name: [f"a{NUL}b"]})
    return found


@pytest.mark.parametrize("lane", ["guest", "applicant", "member"])
async def test_a_control_character_in_any_string_argument_of_any_tool_is_a_tool_error(club, lane):
    token = {
        "guest": None,
        "applicant": club.tokens.applicant.token,
        "member": club.tokens.member.token,
    }[lane]
    tried = 0
    async with connect(club.url, token) as client:
        for tool in (await client.list_tools()).tools:
            for arguments in poisoned_arguments(tool.input_schema):
                result = await client.call_tool(tool.name, arguments)
                text = result.content[0].text
                assert result.is_error and "control character U+0000" in text, (
                    tool.name,
                    arguments,
                    text,
                )
                tried += 1
    assert (
        tried >= {"guest": 1, "applicant": 2, "member": 5}[lane]
    )  # apply, view_member, ask, update_briefing, …


async def test_a_control_character_in_a_signin_handle_a_query_or_a_console_form_is_a_400(club):
    async with httpx2.AsyncClient(base_url=club.live.base, timeout=30) as http:
        page = await http.get("/signin")
        signin = await http.post(
            "/signin",
            data={
                "csrf": csrf_of(page.text),
                "next": "/console",
                "handle": f"bruno{NUL}",
                "password": "x",
            },
        )
        assert signin.status_code == 400 and "control character U+0000" in signin.text, signin.text
        client = await http.get(
            "/oauth/authorize",
            params={"response_type": "code", "client_id": f"c{NUL}", "redirect_uri": REDIRECT_URI},
        )
        assert client.status_code == 400, client.text
        token = await http.post(
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "client_id": f"c{NUL}",
                "code": "x",
                "redirect_uri": REDIRECT_URI,
            },
        )
        assert token.status_code == 400 and "control character" in token.text, token.text
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        changed = await bruno.post(
            "/console/password", {"current": f"x{NUL}", "new": "y", "again": "y"}
        )
        assert changed.status_code == 400 and "control character U+0000" in changed.text


@pytest.mark.parametrize(
    "uri",
    [
        f"{REDIRECT_URI}\r\nSet-Cookie: x=1",
        f"{REDIRECT_URI}\n",
        f"{REDIRECT_URI}{NUL}",
        "http://127.0.0.1:9/c b",
    ],
)
async def test_registration_refuses_redirect_uris_with_line_breaks_or_control_characters(club, uri):
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            club.live.base + "/oauth/register",
            json={"client_name": "x", "redirect_uris": [uri], "token_endpoint_auth_method": "none"},
        )
    assert response.status_code == 400, response.text
    assert response.json()["error"] in ("invalid_redirect_uri", "invalid_request"), response.text


async def test_consent_without_a_redirect_uri_is_a_400_that_says_so(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
    _, challenge = pkce()
    query = authorize_query(client["client_id"], challenge, club.url, state="st4te")
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        consent = await bruno.get("/oauth/authorize?" + urlencode(query))
        assert consent.status_code == 200, consent.text
        agent = consent.text.split('<option value="', 1)[1].split('"', 1)[0]
        without = {name: value for name, value in query.items() if name != "redirect_uri"}
        answer = await bruno.http.post(
            "/oauth/authorize",
            data={
                "csrf": hidden(consent.text, "csrf"),
                "query": urlencode(without),
                "agent": agent,
                "scope": ["club:read"],
                "decision": "approve",
            },
        )
        assert answer.status_code == 400 and "redirect_uri is required" in answer.text, answer.text
        page = await bruno.get("/oauth/authorize?" + urlencode(without))
        assert page.status_code == 400 and "redirect_uri is required" in page.text, page.text


@pytest.mark.parametrize(
    "target",
    [
        "/\t/evil.example",
        "/\n/evil.example",
        "/ /evil.example",
        "//evil.example",
        "/\\evil.example",
        "https://evil.example/",
        "/%09/evil.example",
    ],
)
async def test_a_signin_next_outside_this_site_goes_home(club, target):
    async with httpx2.AsyncClient(base_url=club.live.base, timeout=30) as http:
        page = await http.get("/signin", params={"next": target})
        signin = await http.post(
            "/signin",
            data={
                "csrf": csrf_of(page.text),
                "next": target,
                "handle": "bruno",
                "password": club.tokens.passwords["bruno"],
            },
        )
        assert signin.status_code == 303, signin.text
        location = signin.headers["location"]
        assert location.startswith("/") and not location.startswith("//"), location
        assert httpx2.URL(club.live.base).join(location).host == "127.0.0.1", location


async def test_a_tools_call_sent_as_a_notification_is_dropped_quietly_and_changes_nothing(
    club, caplog
):
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {club.tokens.member.token}",
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    note = {
        "name": "update_briefing",
        "arguments": {"topic": "quietly", "text": "sent as a notification"},
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(club.url, json=initialize, headers=headers)
        session = {**headers, "Mcp-Protocol-Version": "2025-06-18"}
        if "mcp-session-id" in opened.headers:  # none on PostgreSQL: its sessions are stateless
            session["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        await http.post(
            club.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=session,
        )
        for params in ({"name": "whoami", "arguments": {}}, note):
            sent = await http.post(
                club.url,
                json={"jsonrpc": "2.0", "method": "tools/call", "params": params},
                headers=session,
            )
            assert sent.status_code == 202, sent.text
        after = await http.post(
            club.url,
            headers=session,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "whoami", "arguments": {}},
            },
        )
        assert after.status_code == 200 and "member" in after.text
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING], (
        caplog.text
    )
    db = club.db()
    assert db.execute("SELECT COUNT(*) FROM briefing WHERE topic = 'quietly'").fetchone()[0] == 0


def initialize_body(n: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": f"c{n}", "version": "1"},
        },
    }


async def test_guests_cannot_take_the_sessions_a_member_needs(tmp_path):
    capacity = 40
    with running_club(tmp_path, env={"PARLEY_MAX_SESSIONS": str(capacity)}) as club:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        async with httpx2.AsyncClient(timeout=30) as http:
            guests = [
                await http.post(club.url, json=initialize_body(n), headers=headers)
                for n in range(capacity + 5)
            ]
            opened = [r for r in guests if r.status_code == 200]
            refused = [r for r in guests if r.status_code != 200]
            assert 0 < len(opened) < capacity // 2 and refused, [r.status_code for r in guests]
            assert all(
                r.status_code == 429
                and r.headers["retry-after"]
                and "guest sessions are at their limit" in r.json()["error_description"]
                for r in refused
            )
            member = {**headers, "Authorization": f"Bearer {club.tokens.member.token}"}
            for n in range(3):  # a member always gets a session while guests hold all they may
                answer = await http.post(club.url, json=initialize_body(100 + n), headers=member)
                assert answer.status_code == 200 and answer.headers.get("mcp-session-id"), (
                    answer.text
                )
            # a guest session ended gives its slot back
            ended = await http.delete(
                club.url,
                headers={
                    **headers,
                    "Mcp-Session-Id": opened[0].headers["mcp-session-id"],
                    "Mcp-Protocol-Version": "2025-06-18",
                },
            )
            assert ended.status_code == 200, ended.text
            again = await http.post(club.url, json=initialize_body(200), headers=headers)
            assert again.status_code == 200, again.text


async def signin_attempt(http: httpx2.AsyncClient, handle: str, password: str) -> httpx2.Response:
    page = await http.get("/signin")
    return await http.post(
        "/signin",
        data={
            "csrf": csrf_of(page.text),
            "next": "/console",
            "handle": handle,
            "password": password,
        },
    )


@pytest.mark.parametrize("handle", ["bruno", "nobody-here"])
async def test_password_guessing_is_limited_per_account_and_says_nothing_of_whether_it_exists(
    club, handle
):
    """The same answers, in the same order, for an account that exists and one that does not."""
    async with httpx2.AsyncClient(base_url=club.live.base, timeout=30) as http:
        statuses = [
            await signin_attempt(http, handle, f"guess-{n}")
            for n in range(ACCOUNT_ATTEMPTS_PER_MINUTE + 1)
        ]
        assert [r.status_code for r in statuses] == [401] * ACCOUNT_ATTEMPTS_PER_MINUTE + [429]
        refused = statuses[-1]
        assert int(refused.headers["retry-after"]) >= 1
        assert "Too many password attempts; wait" in refused.text and handle not in refused.text
        if (
            handle == "bruno"
        ):  # the right password waits out the limit too: guessing cannot race the owner
            assert (
                await signin_attempt(http, "bruno", club.tokens.passwords["bruno"])
            ).status_code == 429


async def test_the_change_password_form_spends_the_same_attempts(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        statuses = [
            (
                await ana.post(
                    "/console/password",
                    {
                        "current": f"wrong-{n}",
                        "new": "a-new-pass-phrase-1",
                        "again": "a-new-pass-phrase-1",
                    },
                    page="/console/settings",
                )
            )
            for n in range(ACCOUNT_ATTEMPTS_PER_MINUTE)
        ]
        assert [r.status_code for r in statuses] == [400] * (ACCOUNT_ATTEMPTS_PER_MINUTE - 1) + [
            429
        ]
        assert statuses[-1].headers["retry-after"]


def session_cookie_text(value: str) -> str:
    """What anyone who sees Starlette's session cookie can read: its payload is base64 JSON, signed only."""
    payload = value.split(".", 1)[0]
    return base64.b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8", "replace")


async def test_a_freshly_minted_tokens_secret_is_never_readable_in_the_session_cookie(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = (await bruno.get("/console/agents")).text
        agent = re.search(r'id="mint-agent" name="agent"><option value="(\d+)"', page).group(1)  # type: ignore[union-attr]
        minted = await bruno.post(
            "/console/tokens",
            {"agent": agent, "scope": ["club:read"], "expires": "30", "label": "sealed"},
            page="/console/agents",
        )
        assert minted.status_code == 303, minted.text
        cookie = bruno.http.cookies["parley_session"]
        shown = (await bruno.get("/console/agents")).text
        token = re.search(r'id="minted-token">([^<]+)<', shown).group(1)  # type: ignore[union-attr]
        assert token.startswith("pa_")
        assert token not in cookie and token not in session_cookie_text(cookie)
        # the secret is everything after the prefix (url-safe base64, which itself holds "_"): no run of
        # 12 of its characters is in the cookie either
        secret = token.removeprefix("pa_")
        readable = session_cookie_text(cookie)
        assert not any(secret[i : i + 12] in readable for i in range(len(secret) - 11))
        again = (await bruno.get("/console/agents")).text  # shown once
        assert token not in again


async def test_requests_of_the_2026_era_take_no_share_of_the_session_table(tmp_path):
    with running_club(tmp_path, env={"PARLEY_MAX_SESSIONS": "16"}) as club:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Mcp-Protocol-Version": "2026-07-28",
        }
        async with httpx2.AsyncClient(timeout=30) as http:

            async def discover(n: int) -> int:
                answer = await http.post(
                    club.url,
                    headers=headers,
                    json={"jsonrpc": "2.0", "id": n, "method": "server/discover", "params": {}},
                )
                return answer.status_code

            async with anyio.create_task_group() as group:
                statuses: list[int] = []

                async def one(n: int) -> None:
                    statuses.append(await discover(n))

                for n in range(40):  # far more at once than one guest address may hold sessions
                    group.start_soon(one, n)
        assert 429 not in statuses and 503 not in statuses, statuses
