"""The console over real HTTP: sign-in, CSRF, the mandate, tokens, applicants, and isolation between principals."""

from __future__ import annotations

import httpx2

from server.identity import tokens
from server.identity import principals as club_ops
from tests.conftest import connect, tool_names
from tests.console_helpers import ConsoleUser, csrf_of
from tests.test_e2e_lanes import MEMBER


async def an_escalation_for_ana(club) -> int:
    async with connect(club.url, club.tokens.member.token) as bruno:
        result = await bruno.call_tool("ask", {"member": "ana", "question": "What does Ana think of Lisbon rents?"})
    return result.structured_content["escalation_id"]


async def test_signed_out_pages_send_you_to_sign_in(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        for path in ("/console", "/console/queue", "/console/mandate", "/console/agents", "/console/applicants"):
            response = await http.get(path)
            assert response.status_code == 303 and response.headers["location"].startswith("/signin")
        refused = await http.post("/console/queue/1", data={"action": "decline"})
        assert refused.status_code in (303, 403)


async def test_wrong_password_and_suspended_principals_cannot_sign_in(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        page = await http.get("/signin")
        wrong = await http.post("/signin", data={"csrf": csrf_of(page.text), "next": "/console", "handle": "ana",
                                                 "password": "not-her-password"})
        assert wrong.status_code == 401 and "Wrong handle or password" in wrong.text
        missing_csrf = await http.post("/signin", data={"handle": "ana", "password": club.tokens.passwords["ana"]})
        assert missing_csrf.status_code == 403
    db = club.db()
    club_ops.set_status(db, "bruno", "suspended")
    db.close()
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        page = await http.get("/signin")
        response = await http.post("/signin", data={"csrf": csrf_of(page.text), "next": "/console",
                                                    "handle": "bruno", "password": club.tokens.passwords["bruno"]})
        assert response.status_code == 401


async def test_the_session_cookie_is_http_only_and_same_site(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        page = await http.get("/signin")
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "parley_session=" in cookie
        assert page.headers["x-frame-options"] == "DENY"


async def test_forms_without_the_sessions_csrf_token_change_nothing(club):
    escalation = await an_escalation_for_ana(club)
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        forged = await ana.http.post(f"/console/queue/{escalation}", data={"action": "answer", "text": "forged",
                                                                          "csrf": "not-the-token"})
        assert forged.status_code == 403
        assert "What does Ana think of Lisbon rents?" in (await ana.get("/console/queue")).text


async def test_one_principal_never_sees_or_acts_on_anothers_queue_mandate_or_tokens(club):
    escalation = await an_escalation_for_ana(club)
    db = club.db()
    ana_token = tokens.mint(db, principal_id=club_ops.find_principal(db, "ana").id,
                            agent_id=club_ops.find_agent(db, "ana")[0], scopes={"club:read"})
    db.close()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        queue = await bruno.get("/console/queue")
        assert "Lisbon rents" not in queue.text
        by_url = await bruno.post(f"/console/queue/{escalation}", {"action": "answer", "text": "hijacked"})
        assert by_url.status_code == 404
        revoke = await bruno.post(f"/console/tokens/{ana_token.public_id}/revoke", {})
        assert revoke.status_code == 404
        steward_only = await bruno.get("/console/applicants")
        assert steward_only.status_code == 404
        admit = await bruno.post("/console/applicants/carla/admit", {})
        assert admit.status_code == 404
        agents = await bruno.get("/console/agents")
        assert ana_token.public_id not in agents.text
        mandate = await bruno.get("/console/mandate")
        assert "availability" not in mandate.text  # ana's topics, not bruno's
    async with connect(club.url, ana_token.token) as ana_agent:
        assert "my_profile" in await tool_names(ana_agent)  # still valid: bruno could not revoke it
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert "Lisbon rents" in (await ana.get("/console/queue")).text  # still open, unchanged


async def test_mint_shows_the_token_once_and_revoke_refuses_it_next_request(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = await bruno.get("/console/agents")
        agent_id = page.text.split('<option value="')[1].split('"')[0]
        minted = await bruno.post("/console/tokens", {"agent": agent_id, "scope": ["club:read", "inbox:read"]},
                                  page="/console/agents")
        token = minted.text.split('id="minted-token">')[1].split("<")[0]
        assert token.startswith("pa_")
        assert token not in (await bruno.get("/console/agents")).text  # never shown again
        async with connect(club.url, token) as agent:
            assert await tool_names(agent) == ["about_club", "whoami", "apply", "my_profile", "my_mandate", "plan",
                                               "inbox"]
        public_id = minted.text.split("Token id ")[1].split(";")[0]
        revoked = await bruno.post(f"/console/tokens/{public_id}/revoke", {}, page="/console/agents")
        assert revoked.status_code == 303
    async with httpx2.AsyncClient() as http:
        response = await http.post(club.url, headers={"Authorization": f"Bearer {token}",
                                                      "Accept": "application/json, text/event-stream"},
                                   json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert response.status_code == 401


async def test_narrowing_the_mandate_in_the_console(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        signed = await bruno.post("/console/mandate", {"topics": "databases, hiring", "reveal": ["public"],
                                                        "scope": ["club:read", "inbox:read"], "days": "30"},
                                  page="/console/mandate")
        assert signed.status_code == 303
        page = await bruno.get("/console/mandate")
        assert "signed and verified" in page.text and "club:read, inbox:read" in page.text
        bad = await bruno.post("/console/mandate", {"topics": "x", "scope": ["mandate:write"], "days": "30"},
                               page="/console/mandate")
        assert bad.status_code == 400 and "can never grant mandate:write" in bad.text
    async with connect(club.url, club.tokens.member.token) as agent:
        assert await tool_names(agent) == ["about_club", "whoami", "apply", "my_profile", "my_mandate", "plan", "inbox"]


async def test_a_steward_sees_applicants_with_evidence_and_admits(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = await ana.get("/console/applicants")
        assert "Carla Mendes" in page.text and "Introduced by Bruno" in page.text
        admitted = await ana.post("/console/applicants/carla/admit", {}, page="/console/applicants")
        assert admitted.status_code == 303
    async with connect(club.url, club.tokens.applicant.token) as carla:
        who = (await carla.call_tool("whoami", {})).structured_content
        assert who["lane"] == "member"
        assert "directory:read" not in who["effective_scopes"]  # her mandate is still the applicant one
    assert len(MEMBER) == 14
