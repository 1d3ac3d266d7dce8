"""Second guards on promises that each had one test: the mandate signature, CSRF on every form,
and refresh-token reuse revoking the whole grant family."""

from __future__ import annotations

import base64
import json

import httpx2

from server.identity import principals as club_ops
from tests.access.test_e2e_lanes import GUEST, MEMBER
from tests.conftest import connect
from tests.console_helpers import ConsoleUser, csrf_of
from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register

ACCEPT = {"Accept": "application/json, text/event-stream"}
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


# --- the mandate signature ----------------------------------------------------------------------


def _brunos_mandate(club):
    db = club.db()
    bruno = club_ops.find_principal(db, "bruno")
    row = db.execute(
        "SELECT id, body, signature FROM mandates WHERE principal_id = ? ORDER BY version DESC LIMIT 1",
        [bruno.id],
    ).fetchone()
    return db, row


async def _whoami(client) -> dict:
    return (await client.call_tool("whoami", {})).structured_content


async def test_a_widened_mandate_body_with_the_old_signature_is_no_mandate(club):
    async with connect(club.url, club.tokens.member.token, "auto") as client:
        assert await client.list_tools() and (await _whoami(client))["mandate"]["state"] == "valid"
        db, (mandate_id, body, _) = _brunos_mandate(club)
        terms = json.loads(body)
        terms["scopes"] = sorted(set(terms["scopes"]) | {"directory:read", "briefing:write"})
        terms["topics"] = terms["topics"] + ["everything"]
        db.execute(
            "UPDATE mandates SET body = ? WHERE id = ?",
            [json.dumps(terms, sort_keys=True, separators=(",", ":")), mandate_id],
        )
        db.close()
        who = await _whoami(client)
        assert who["mandate"]["state"] == "invalid_signature" and who["effective_scopes"] == []
        assert [tool.name for tool in (await client.list_tools()).tools] == GUEST


async def test_a_mandate_with_a_foreign_signature_is_no_mandate_even_after_it_verified_once(club):
    async with connect(club.url, club.tokens.member.token, "auto") as client:
        assert (await _whoami(client))["mandate"]["state"] == "valid"  # verified, and remembered
        db, (mandate_id, _, signature) = _brunos_mandate(club)
        raw = bytearray(base64.b64decode(signature))
        raw[0] ^= 0x01
        db.execute(
            "UPDATE mandates SET signature = ? WHERE id = ?",
            [base64.b64encode(bytes(raw)).decode(), mandate_id],
        )
        db.close()
        who = await _whoami(client)
        assert who["mandate"]["state"] == "invalid_signature" and who["effective_scopes"] == []
        db, _ = _brunos_mandate(club)
        db.execute("UPDATE mandates SET signature = ? WHERE id = ?", [signature, mandate_id])
        db.close()
        assert [
            tool.name for tool in (await client.list_tools()).tools
        ] == MEMBER  # the true signature verifies


# --- CSRF -------------------------------------------------------------------------------------


async def test_sign_in_refuses_an_empty_a_missing_and_another_sessions_csrf_token(club):
    password = club.tokens.passwords["ana"]
    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as other:
        foreign = csrf_of((await other.get("/signin")).text)
    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as fresh:
        empty = await fresh.post(
            "/signin", data={"csrf": "", "next": "/console", "handle": "ana", "password": password}
        )
        assert empty.status_code == 403
    async with httpx2.AsyncClient(
        base_url=club.live.base, follow_redirects=False, timeout=30
    ) as http:
        csrf_of((await http.get("/signin")).text)
        for form in ({"csrf": foreign}, {}, {"csrf": ""}):
            refused = await http.post(
                "/signin", data={**form, "next": "/console", "handle": "ana", "password": password}
            )
            assert refused.status_code == 403, form
        assert (await http.get("/console")).status_code == 303  # still signed out


async def test_a_console_form_with_another_sessions_csrf_token_changes_nothing(club):
    db = club.db()
    before = db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
    db.close()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        foreign = csrf_of((await bruno.get("/console")).text)
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        for form in ({"csrf": foreign}, {"csrf": ""}, {}):
            forged = await ana.http.post("/console/tokens", data={**form, "agent": "assistant"})
            assert forged.status_code == 403, form
    db = club.db()
    assert db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == before
    db.close()


# --- refresh-token reuse ------------------------------------------------------------------------


async def _probe(http, club, access: str) -> httpx2.Response:
    return await http.post(
        club.url, headers={"Authorization": f"Bearer {access}", **ACCEPT}, json=INIT
    )


async def test_reusing_any_rotated_refresh_token_revokes_every_token_of_the_family(club):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        pairs = [(await redeem(http, club.live.base, client["client_id"], code, verifier)).json()]
        token_url = club.live.base + "/oauth/token"
        rotate = {"grant_type": "refresh_token", "client_id": client["client_id"]}
        for _ in range(2):
            response = await http.post(
                token_url, data={**rotate, "refresh_token": pairs[-1]["refresh_token"]}
            )
            assert response.status_code == 200, response.text
            pairs.append(response.json())
        assert len({pair["refresh_token"] for pair in pairs}) == 3  # rotated on every use
        for pair in pairs:
            assert (await _probe(http, club, pair["access_token"])).status_code == 200
        reused = await http.post(
            token_url, data={**rotate, "refresh_token": pairs[1]["refresh_token"]}
        )
        assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
        for pair in pairs:
            probe = await _probe(http, club, pair["access_token"])
            assert probe.status_code == 401
            assert (
                probe.json()["error_description"]
                == "token's grant was revoked (refresh token reused)"
            )
        newest = await http.post(
            token_url, data={**rotate, "refresh_token": pairs[-1]["refresh_token"]}
        )
        assert newest.status_code == 400 and newest.json()["error"] == "invalid_grant"
