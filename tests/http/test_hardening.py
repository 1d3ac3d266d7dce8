"""Issue 13's defects, each pinned by a test that failed before its fix: bad input is a clean 4xx that
changes nothing, credentials stay where they belong, and a slow dependency stalls no other caller."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest

from server.identity import principals as club_ops
from tests.conftest import connect, running_club
from tests.http_stub import reply
from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register

JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
)


async def test_two_authorization_headers_are_refused(club):
    async with httpx2.AsyncClient(timeout=10) as http:
        headers = [
            ("authorization", f"Bearer {club.tokens.member.token}"),
            ("authorization", f"Bearer {club.tokens.applicant.token}"),
            *JSON.items(),
        ]
        response = await http.post(club.url, content=PING, headers=headers)
    assert (
        response.status_code == 400
        and "one Authorization header" in response.json()["error_description"]
    )


async def test_a_credential_in_the_query_string_is_refused(club, caplog):
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(
            f"{club.url}?access_token={club.tokens.member.token}", content=PING, headers=JSON
        )
    assert (
        response.status_code == 400 and "never in the URL" in response.json()["error_description"]
    )
    assert club.tokens.member.token not in caplog.text


def test_the_request_log_never_writes_a_query_string():
    import logging

    from server.http.request_log import QuerylessAccessLog

    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "POST", "/mcp?access_token=pa_secret", "1.1", 400),
        None,
    )
    assert QuerylessAccessLog().filter(record) and "pa_secret" not in record.getMessage()


async def test_a_session_belongs_to_the_caller_that_opened_it(club):
    async with httpx2.AsyncClient(timeout=10) as http:
        opened = await http.post(
            club.url,
            content=INIT,
            headers={**JSON, "Authorization": f"Bearer {club.tokens.member.token}"},
        )
        session = opened.headers["mcp-session-id"]
        other = await http.post(
            club.url,
            content=PING,
            headers={
                **JSON,
                "Authorization": f"Bearer {club.tokens.applicant.token}",
                "Mcp-Session-Id": session,
            },
        )
        assert other.status_code == 404 and other.json()["error"]["message"] == "Session not found"
        guest = await http.post(club.url, content=PING, headers={**JSON, "Mcp-Session-Id": session})
        assert guest.status_code == 404
        same = await http.post(
            club.url,
            content=PING,
            headers={
                **JSON,
                "Authorization": f"Bearer {club.tokens.member.token}",
                "Mcp-Session-Id": session,
            },
        )
        assert same.status_code == 200 and same.json()["result"] == {}


async def oauth_access_token(club, http) -> tuple[str, dict, str]:
    client = await register(http, club.live.base)
    verifier, challenge = pkce()
    code = code_of(await authorize(club, http, client["client_id"], challenge))
    tokens = await redeem(http, club.live.base, client["client_id"], code, verifier)
    assert tokens.status_code == 200, tokens.text
    return tokens.json()["access_token"], client, tokens.json()["refresh_token"]


async def test_deeply_nested_json_with_an_oauth_token_is_a_parse_error_not_a_500(club):
    async with httpx2.AsyncClient(timeout=20) as http:
        access, _, _ = await oauth_access_token(club, http)
        response = await http.post(
            club.url,
            content="[" * 1000 + "]" * 1000,
            headers={**JSON, "Authorization": f"Bearer {access}"},
        )
    assert response.status_code < 500
    assert response.json()["error"]["message"].startswith("Parse error")


@pytest.mark.parametrize(
    "body",
    [
        "[" * 1000 + "]" * 1000,
        json.dumps({"redirect_uris": [1, 2], "token_endpoint_auth_method": "none"}),
        json.dumps({"redirect_uris": "https://x.example/cb"}),
        json.dumps({"redirect_uris": ["https://x.example/cb"], "client_name": {"a": 1}}),
    ],
)
async def test_malformed_registrations_are_refused_and_store_nothing(club, body):
    db = club.db()
    before = db.execute("SELECT COUNT(*) FROM oauth_clients").fetchone()[0]
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(
            club.live.base + "/oauth/register",
            content=body,
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 400 and response.json()["error"].startswith("invalid_")
    assert db.execute("SELECT COUNT(*) FROM oauth_clients").fetchone()[0] == before
    db.close()


async def test_registration_is_rate_limited(club):
    async with httpx2.AsyncClient(timeout=10) as http:
        statuses = [
            (
                await http.post(
                    club.live.base + "/oauth/register",
                    json={
                        "redirect_uris": ["http://127.0.0.1:9/cb"],
                        "token_endpoint_auth_method": "none",
                    },
                )
            ).status_code
            for _ in range(35)
        ]
    assert statuses[:30] == [201] * 30 and statuses[30:] == [429] * 5


async def test_a_suspended_principal_refreshes_nothing(club):
    async with httpx2.AsyncClient(timeout=20) as http:
        _, client, refresh = await oauth_access_token(club, http)
        db = club.db()
        club_ops.set_status(db, "bruno", "suspended")
        db.close()
        refused = await http.post(
            club.live.base + "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": refresh,
                "client_id": client["client_id"],
            },
        )
    assert refused.status_code == 400 and "access_token" not in refused.json()


async def test_a_failed_verifier_burns_the_code(club):
    async with httpx2.AsyncClient(timeout=20) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        wrong = await redeem(http, club.live.base, client["client_id"], code, pkce()[0])
        assert wrong.status_code == 400
        right = await redeem(http, club.live.base, client["client_id"], code, verifier)
    assert right.status_code == 400 and right.json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("update_briefing", {"topic": "t", "text": "x", "visibility": "public", "note_id": 2**63}),
        (
            "update_briefing",
            {"topic": "t", "text": "x", "visibility": "public", "note_id": "12345678901234567890"},
        ),
        ("ask", {"member": "ana", "question": "Is Ana free?", "thread_id": 2**63}),
    ],
)
async def test_overflowing_ids_are_validation_errors(club, tool, arguments):
    async with connect(club.url, club.tokens.member.token) as bruno:
        result = await bruno.call_tool(tool, arguments)
    text = result.content[0].text
    assert (
        result.is_error
        and text.startswith(f"Invalid arguments for {tool}")
        and "Internal error" not in text
    )


async def test_a_retried_ask_with_its_key_returns_the_first_result(club):
    key = "retry-7f3a9c21"
    async with connect(club.url, club.tokens.member.token) as bruno:
        first = await bruno.call_tool(
            "ask",
            {
                "member": "ana",
                "question": "What is Ana's favourite colour?",
                "idempotency_key": key,
            },
        )
        again = await bruno.call_tool(
            "ask",
            {
                "member": "ana",
                "question": "What is Ana's favourite colour?",
                "idempotency_key": key,
            },
        )
        other = await bruno.call_tool(
            "ask",
            {"member": "ana", "question": "And her favourite season?", "idempotency_key": key},
        )
    assert (
        first.structured_content == again.structured_content
        and first.structured_content["escalation_id"]
    )
    assert other.is_error and "already used for a different question" in other.content[0].text
    db = club.db()
    asked = db.execute("SELECT COUNT(*) FROM messages WHERE kind = 'question'").fetchone()[0]
    queued = db.execute("SELECT COUNT(*) FROM escalations").fetchone()[0]
    db.close()
    assert (asked, queued) == (1, 1)


async def test_an_unknown_tool_name_is_bounded_and_printable_everywhere(club):
    name = "evil\x1b[31m\nname" + "x" * 100_000
    async with connect(club.url, club.tokens.member.token) as bruno:
        with pytest.raises(Exception) as refused:
            await bruno.call_tool(name, {})
    message = str(refused.value)
    assert (
        "Unknown tool" in message
        and len(message) < 200
        and "\x1b" not in message
        and "\n" not in message
    )
    db = club.db()
    stored = db.execute("SELECT tool FROM audit ORDER BY id DESC LIMIT 1").fetchone()[0]
    db.close()
    assert len(stored) <= 65 and stored.isprintable()


def test_the_store_and_its_wal_are_owner_only(club):
    for suffix in ("", "-wal", "-shm"):
        mode = stat.S_IMODE(os.stat(f"{club.settings.db_path}{suffix}").st_mode)
        assert mode == 0o600, (suffix, oct(mode))


class SlowModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that takes its time."""

    delay = 3.0

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        time.sleep(self.delay)
        chosen = re.search(
            r"^(\d+): \[availability\]", body["messages"][0]["content"], re.MULTILINE
        )
        content = json.dumps(
            {"notes": [chosen.group(1)]} if chosen else {"escalate": "no such note"}
        )
        reply(self, 200, {"choices": [{"message": {"content": content}}]})

    def log_message(self, *args):
        pass


async def test_a_slow_model_stalls_no_other_caller(tmp_path):
    """Two asks wait 3 s on the model; another member's whoami is answered while both still wait."""
    model = ThreadingHTTPServer(("127.0.0.1", 0), SlowModel)
    threading.Thread(target=model.serve_forever, daemon=True).start()
    env = {
        "PARLEY_ANSWERER_URL": f"http://127.0.0.1:{model.server_port}/v1",
        "PARLEY_ANSWERER_MODEL": "slow",
    }
    try:
        with running_club(tmp_path, env=env) as club:
            async with (
                connect(club.url, club.tokens.member.token) as bruno,
                connect(club.url, club.tokens.steward_principal.token) as ana,
            ):
                asks = [
                    asyncio.create_task(
                        bruno.call_tool(
                            "ask",
                            {"member": "ana", "question": f"Is Ana available for new work? ({n})"},
                        )
                    )
                    for n in range(2)
                ]
                await asyncio.sleep(0.5)  # both asks are now waiting on the model
                who = await ana.call_tool("whoami", {})
                assert who.structured_content["principal"] == "ana"
                assert not any(
                    task.done() for task in asks
                )  # answered while the model still thinks
                answers = await asyncio.gather(*asks)
            assert all("February" in (a.structured_content["findings"] or "") for a in answers)
    finally:
        model.shutdown()


class SlowKeys(BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(3)
        reply(self, 200, {"keys": []})

    def log_message(self, *args):
        pass


async def test_a_slow_jwks_url_stalls_no_other_caller(tmp_path):
    keys = ThreadingHTTPServer(("127.0.0.1", 0), SlowKeys)
    threading.Thread(target=keys.serve_forever, daemon=True).start()
    env = {
        "PARLEY_OAUTH_ISSUER": "https://issuer.example",
        "PARLEY_OAUTH_JWKS_URL": f"http://127.0.0.1:{keys.server_port}/jwks",
    }
    fake_jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsifQ.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
    try:
        with running_club(tmp_path, env=env) as club:
            async with httpx2.AsyncClient(timeout=20) as http:
                pending = asyncio.create_task(
                    http.post(
                        club.url,
                        content=PING,
                        headers={**JSON, "Authorization": f"Bearer {fake_jwt}"},
                    )
                )
                await asyncio.sleep(0.5)  # the gate is now fetching the issuer's keys for it
                async with connect(club.url, club.tokens.member.token) as bruno:
                    who = await bruno.call_tool("whoami", {})
                assert who.structured_content["lane"] == "member" and not pending.done()
                refused = await pending
            assert refused.status_code == 401
    finally:
        keys.shutdown()


async def test_a_slow_context_source_stalls_no_other_caller(tmp_path):
    """A refund waits on a slow HR API (1.5 s a read); another caller's whoami is answered meanwhile."""
    from server.manifest.loading import default_manifest_path
    from tests.chokepoint.test_e2e_rules import HR

    hr = ThreadingHTTPServer(("127.0.0.1", 0), HR)
    HR.mode = "slow"
    threading.Thread(target=hr.serve_forever, daemon=True).start()
    manifest = tmp_path / "desk.yaml"
    manifest.write_text(
        (default_manifest_path().parent / "demo-refunds.yaml")
        .read_text()
        .replace("127.0.0.1:8099", f"127.0.0.1:{hr.server_port}")
        .replace("timeout: 0.5", "timeout: 5")
    )
    try:
        with running_club(tmp_path, manifest) as club:
            async with (
                connect(club.url, club.tokens.member.token) as bruno,
                connect(club.url, club.tokens.applicant.token) as carla,
            ):
                refund = asyncio.create_task(
                    bruno.call_tool("refund_order", {"order_id": "4411", "amount": 150.0})
                )
                await asyncio.sleep(0.3)  # the refund's rules are now waiting on the HR API
                who = await carla.call_tool("whoami", {})
                assert who.structured_content["principal"] == "carla" and not refund.done()
                assert not (await refund).is_error  # within the limit, once HR answered
    finally:
        HR.mode = "ok"
        hr.shutdown()
