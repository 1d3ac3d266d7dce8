"""The console over real HTTP: sign-in, CSRF, the mandate, tokens, applicants, and isolation between principals."""

from __future__ import annotations

import httpx2

from server.identity import principals as club_ops
from server.identity import tokens
from tests.access.test_e2e_lanes import member_tools_within
from tests.conftest import connect, tool_names
from tests.console_helpers import ConsoleUser, csrf_of


async def an_escalation_for_ana(club) -> int:
    async with connect(club.url, club.tokens.member.token) as bruno:
        result = await bruno.call_tool(
            "ask", {"member": "ana", "question": "What does Ana think of Lisbon rents?"}
        )
    return result.structured_content["escalation_id"]


async def test_signed_out_pages_send_you_to_sign_in(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        for path in (
            "/console",
            "/console/queue",
            "/console/mandate",
            "/console/agents",
            "/console/applicants",
        ):
            response = await http.get(path)
            assert response.status_code == 303 and response.headers["location"].startswith(
                "/signin"
            )
        # signed out comes first: the form is not even read, and nothing says whether question 1 exists
        refused = await http.post("/console/queue/1", data={"action": "decline"})
        assert (
            refused.status_code == 303
            and refused.headers["location"] == "/signin?next=/console/queue/1"
        )


async def test_wrong_password_and_suspended_principals_cannot_sign_in(club):
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        page = await http.get("/signin")
        wrong = await http.post(
            "/signin",
            data={
                "csrf": csrf_of(page.text),
                "next": "/console",
                "handle": "ana",
                "password": "not-her-password",
            },
        )
        assert wrong.status_code == 401 and "Wrong handle or password" in wrong.text
        missing_csrf = await http.post(
            "/signin", data={"handle": "ana", "password": club.tokens.passwords["ana"]}
        )
        assert missing_csrf.status_code == 403
    db = club.db()
    club_ops.set_status(db, "bruno", "suspended")
    db.close()
    async with httpx2.AsyncClient(base_url=club.live.base, follow_redirects=False) as http:
        page = await http.get("/signin")
        response = await http.post(
            "/signin",
            data={
                "csrf": csrf_of(page.text),
                "next": "/console",
                "handle": "bruno",
                "password": club.tokens.passwords["bruno"],
            },
        )
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
        forged = await ana.http.post(
            f"/console/queue/{escalation}",
            data={"action": "answer", "text": "forged", "csrf": "not-the-token"},
        )
        assert forged.status_code == 403
        non_ascii = await ana.http.post(
            f"/console/queue/{escalation}", data={"action": "decline", "csrf": "é"}
        )
        assert non_ascii.status_code == 403  # refused like any wrong token, never a 500
        assert "What does Ana think of Lisbon rents?" in (await ana.get("/console/queue")).text


async def test_one_principal_never_sees_or_acts_on_anothers_queue_mandate_or_tokens(club):
    escalation = await an_escalation_for_ana(club)
    db = club.db()
    ana_token = tokens.mint(
        db,
        principal_id=club_ops.find_principal(db, "ana").id,
        agent_id=club_ops.find_agent(db, "ana")[0],
        scopes={"club:read"},
    )
    db.close()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        queue = await bruno.get("/console/queue")
        assert "Lisbon rents" not in queue.text
        by_url = await bruno.post(
            f"/console/queue/{escalation}", {"action": "answer", "text": "hijacked"}
        )
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


async def test_mint_redirects_shows_the_token_once_and_revoke_refuses_it_next_request(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = await bruno.get("/console/agents")
        agent_id = page.text.split('<option value="')[1].split('"')[0]
        db = club.db()
        before = db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0]
        minted = await bruno.post(
            "/console/tokens",
            {
                "agent": agent_id,
                "scope": ["club:read", "inbox:read"],
                "label": "Laptop  assistant",
                "expires": "30",
            },
            page="/console/agents",
        )
        assert (
            minted.status_code == 303 and minted.headers["location"] == "/console/agents"
        )  # Post/Redirect/Get
        assert "pa_" not in minted.headers["location"] and "pa_" not in minted.text
        shown = await bruno.get("/console/agents")
        token = shown.text.split('id="minted-token">')[1].split("<")[0]
        assert token.startswith("pa_") and "Laptop assistant" in shown.text
        public_id = shown.text.split('id="minted-id">')[1].split("<")[0]
        reloaded = await bruno.get("/console/agents")
        assert (
            token not in reloaded.text and 'id="minted-token"' not in reloaded.text
        )  # never shown again
        assert (
            db.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == before + 1
        )  # reload minted nothing
        label, expires = db.execute(
            "SELECT label, expires_at FROM tokens WHERE public_id = ?", [public_id]
        ).fetchone()
        db.close()
        assert label == "Laptop assistant" and expires is not None
        assert "Last used" in reloaded.text and "until" in reloaded.text
        async with connect(club.url, token) as agent:
            assert await tool_names(agent) == member_tools_within("club:read", "inbox:read")
        asked = await bruno.post(f"/console/tokens/{public_id}/revoke", {}, page="/console/agents")
        assert (
            asked.status_code == 200 and "Revoke “Laptop assistant”?" in asked.text
        )  # are you sure, by its label
        assert (
            "refused from its next request" in asked.text
            and 'name="confirm" value="yes"' in asked.text
        )
        async with connect(club.url, token) as agent:
            assert "my_profile" in await tool_names(agent)  # asking revoked nothing
        revoked = await bruno.post(
            f"/console/tokens/{public_id}/revoke", {"confirm": "yes"}, page="/console/agents"
        )
        assert revoked.status_code == 303
        assert "Token “Laptop assistant” revoked" in (await bruno.get("/console/agents")).text
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            club.url,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert response.status_code == 401


async def test_minting_refuses_unbounded_ids_and_unknown_choices(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        for agent in ("1e3", "-1", "0", "99999999999999999999", ""):
            refused = await bruno.post(
                "/console/tokens", {"agent": agent, "scope": ["club:read"]}, page="/console/agents"
            )
            assert (
                refused.status_code == 400 and "Choose one of your active agents." in refused.text
            )
        page = await bruno.get("/console/agents")
        agent_id = page.text.split('<option value="')[1].split('"')[0]
        forever = await bruno.post(
            "/console/tokens",
            {"agent": agent_id, "scope": ["club:read"], "expires": "1000"},
            page="/console/agents",
        )
        assert forever.status_code == 400 and "how long" in forever.text
        for path in (
            "/console/queue/abc",
            "/console/queue/0",
            "/console/queue/123456789012345678901",
        ):
            assert (await bruno.post(path, {"action": "decline"})).status_code == 404


async def test_narrowing_the_mandate_in_the_console(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        form = {
            "topics": "databases, hiring",
            "reveal": ["public"],
            "scope": ["club:read", "inbox:read"],
            "days": "30",
        }
        review = await bruno.post("/console/mandate", form, page="/console/mandate")
        assert review.status_code == 200 and "What changes:" in review.text  # shown before signing
        said = review.text.split("What changes:")[1].split("<form")[0]
        assert "can no longer:" in said and "search and view the member directory" in said
        assert "stops answering about “writing”" in said and "expires on" in said
        signed = await bruno.post(
            "/console/mandate", {**form, "confirm": "yes"}, page="/console/mandate"
        )
        assert signed.status_code == 303
        page = await bruno.get("/console/mandate")
        assert "signed and verified" in page.text
        ceiling = page.text.split('id="mandate-scopes">')[1].split("</dd>")[0]
        words = {name: scope.description for name, scope in club.manifest().scopes.items()}
        assert (
            words["club:read"] in ceiling
            and words["inbox:read"] in ceiling
            and words["directory:read"] not in ceiling
        )  # in the member's words, not the scope's name
        bad = await bruno.post(
            "/console/mandate",
            {"topics": "x", "scope": ["mandate:write"], "days": "30", "confirm": "yes"},
            page="/console/mandate",
        )
        assert bad.status_code == 400 and "can never grant mandate:write" in bad.text
    async with connect(club.url, club.tokens.member.token) as agent:
        assert await tool_names(agent) == member_tools_within("club:read", "inbox:read")


async def test_a_steward_sees_applicants_with_evidence_and_admits(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = await ana.get("/console/applicants")
        assert "Carla Mendes" in page.text and "Introduced by Bruno" in page.text
        admitted = await ana.post("/console/applicants/carla/admit", {}, page="/console/applicants")
        assert admitted.status_code == 303
    async with connect(club.url, club.tokens.applicant.token) as carla:
        who = (await carla.call_tool("whoami", {})).structured_content
        assert who["lane"] == "member"
        assert (
            "directory:read" not in who["effective_scopes"]
        )  # her mandate is still the applicant one


async def test_a_decision_that_cannot_be_made_shows_its_message_keeps_the_form_and_changes_nothing(
    club,
):
    escalation = await an_escalation_for_ana(club)
    db = club.db()
    version = db.execute(
        "SELECT MAX(version) FROM mandates WHERE principal_id = ?",
        [club_ops.find_principal(db, "ana").id],
    ).fetchone()[0]
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        empty = await ana.post(
            f"/console/queue/{escalation}",
            {"action": "answer", "text": "   "},
            page="/console/queue",
        )
        assert empty.status_code == 400 and "Write the answer you want delivered" in empty.text
        assert (
            'role="alert" id="error-' in empty.text
        )  # the message sits on the question's own card
        widen = await ana.post(
            f"/console/queue/{escalation}",
            {"action": "widen", "text": "gardening"},
            page="/console/queue",
        )
        assert (
            widen.status_code == 400
            and "Even with &#39;gardening&#39; in the mandate" in widen.text
        )
        assert (
            'name="text" value="gardening"' in widen.text and "<details open>" in widen.text
        )  # the form kept
        long = "My own words. " * 5
        too_long = await ana.post(
            f"/console/queue/{escalation}",
            {"action": "nonsense", "text": long},
            page="/console/queue",
        )
        assert (
            too_long.status_code == 400 and f">{long}</textarea>" in too_long.text
        )  # the answer box kept its text
        queue = await ana.get("/console/queue")
        assert (
            "Lisbon rents" in queue.text and "Nothing waits for you." not in queue.text
        )  # still open
    assert (
        db.execute(
            "SELECT MAX(version) FROM mandates WHERE principal_id = ?",
            [club_ops.find_principal(db, "ana").id],
        ).fetchone()[0]
        == version
    )  # mandate unchanged
    assert (
        db.execute("SELECT status FROM escalations WHERE id = ?", [escalation]).fetchone()[0]
        == "open"
    )
    db.close()


async def test_the_queue_offers_widening_only_where_it_can_help_and_shows_why_and_the_thread(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        booked = await bruno.call_tool(
            "ask", {"member": "ana", "question": "Book Ana on Tuesday at 3"}
        )
        rents = await bruno.call_tool(
            "ask", {"member": "ana", "question": "What does Ana think of Lisbon rents?"}
        )
    commitment, topic = (
        booked.structured_content["escalation_id"],
        rents.structured_content["escalation_id"],
    )
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = (await ana.get("/console/queue")).text
        card = page.split(f'id="escalation-{commitment}"')[1].split("</section>")[0]
        assert (
            "Let your agent answer" not in card
            and "commitment" in card
            and "Answer question" in card
        )
        other = page.split(f'id="escalation-{topic}"')[1].split("</section>")[0]
        assert "Let your agent answer question" in other
        # why it is here, worded from today's mandate and notes (never "does not cover": a topic added
        # since would make it false)
        assert "does not cover" not in other and (
            "not sure which of your notes" in other or "Your mandate covers: " in other
        )
        assert (
            "UTC</time>" in card and "· en" not in card and "English" in card
        )  # a human time with its zone
        refused = await ana.post(
            f"/console/queue/{commitment}",
            {"action": "widen", "text": "availability"},
            page="/console/queue",
        )
        assert refused.status_code == 400 and "Widening cannot help" in refused.text


async def test_a_steward_declines_with_a_reason_the_applicant_can_read(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = await ana.get("/console/applicants")
        assert "1 piece of evidence" in page.text and "applied" in page.text
        empty = await ana.post(
            "/console/applicants/carla/decline", {"reason": "  "}, page="/console/applicants"
        )
        assert empty.status_code == 400 and "Give the applicant a reason" in empty.text
        reason = {"reason": "Come back with a project you shipped."}
        asked = await ana.post(
            "/console/applicants/carla/decline", reason, page="/console/applicants"
        )
        assert asked.status_code == 200 and "Decline Carla Mendes (@carla)?" in asked.text
        assert (
            "No one is waiting" not in (await ana.get("/console/applicants")).text
        )  # asking declined nothing
        declined = await ana.post(
            "/console/applicants/carla/decline",
            {**reason, "confirm": "yes"},
            page="/console/applicants",
        )
        assert declined.status_code == 303
        page = await ana.get("/console/applicants")
        assert (
            "No one is waiting" in page.text
            and "Come back with a project you shipped." in page.text
        )
    db = club.db()
    from server.store import console as console_rows

    carla = club_ops.find_principal(db, "carla")
    decision = console_rows.application_decision(db, carla.id)
    db.close()
    assert carla.status == "applicant"
    assert (
        decision is not None
        and decision.status == "declined"
        and decision.decision == "Come back with a project you shipped."
    )
    async with ConsoleUser(
        club.live.base, "carla", club.tokens.passwords["carla"]
    ) as carla_console:
        assert "Come back with a project you shipped." in (await carla_console.get("/console")).text
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        assert (
            await bruno.post("/console/applicants/carla/decline", {"reason": "x"})
        ).status_code == 404


async def test_a_new_member_is_told_of_missing_scopes_and_re_signs_with_one_action(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert (
            await ana.post("/console/applicants/carla/admit", {}, page="/console/applicants")
        ).status_code == 303
    async with ConsoleUser(club.live.base, "carla", club.tokens.passwords["carla"]) as carla:
        home = await carla.get("/console")
        directory = club.manifest().scopes["directory:read"].description
        assert "you are a member now" in home.text and directory in home.text
        assert (
            "Re-sign with everything members can do" in (await carla.get("/console/mandate")).text
        )
        signed = await carla.post("/console/mandate/member-scopes", {})
        assert signed.status_code == 303 and signed.headers["location"] == "/console"
        assert "Re-sign with everything members can do" not in (await carla.get("/console")).text
    async with connect(club.url, club.tokens.applicant.token) as agent:
        who = (await agent.call_tool("whoami", {})).structured_content
        assert who["lane"] == "member" and "directory:read" in who["effective_scopes"]
