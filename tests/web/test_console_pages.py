"""The console's sessions (kept server-side), Settings, Activity, and its own stylesheet, over real HTTP."""

from __future__ import annotations

import httpx2

from server.identity import principals as club_ops
from server.store import settings as setting_rows
from tests.conftest import connect
from tests.console_helpers import ConsoleUser


def replay(base: str, cookie: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        base_url=base, follow_redirects=False, cookies={"parley_session": cookie}
    )


async def test_sign_out_ends_the_session_even_for_a_copy_of_its_cookie(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        cookie = bruno.http.cookies["parley_session"]
        db = club.db()
        stored = [row[0] for row in db.execute("SELECT digest FROM console_sessions").fetchall()]
        db.close()
        assert (
            len(stored) == 1 and len(stored[0]) == 64
        )  # a SHA-256 digest, never the cookie's secret
        out = await bruno.post("/signout", {})
        assert out.status_code == 303
    async with replay(club.live.base, cookie) as thief:
        page = await thief.get("/console")
        assert page.status_code == 303 and page.headers["location"].startswith("/signin")


async def test_a_password_change_ends_every_other_session(club):
    password = club.tokens.passwords["bruno"]
    async with (
        ConsoleUser(club.live.base, "bruno", password) as laptop,
        ConsoleUser(club.live.base, "bruno", password) as phone,
    ):
        old_cookie = laptop.http.cookies["parley_session"]
        wrong = await laptop.post(
            "/console/password",
            {"current": "nope", "new": "a-new-long-password", "again": "a-new-long-password"},
            page="/console/settings",
        )
        assert wrong.status_code == 400 and "current password is not right" in wrong.text
        changed = await laptop.post(
            "/console/password",
            {"current": password, "new": "a-new-long-password", "again": "a-new-long-password"},
            page="/console/settings",
        )
        assert changed.status_code == 303
        assert (await laptop.get("/console")).status_code == 200  # this browser signed in afresh
        assert (await phone.get("/console")).status_code == 303  # the other one is out
        async with replay(club.live.base, old_cookie) as stale:
            assert (await stale.get("/console")).status_code == 303
    db = club.db()
    club_ops.set_password(
        db, "bruno", "set-from-the-cli-too"
    )  # the CLI path ends sessions the same way
    db.close()
    async with ConsoleUser(club.live.base, "bruno", "set-from-the-cli-too") as again:
        cookie = again.http.cookies["parley_session"]
        db = club.db()
        club_ops.set_password(db, "bruno", "and-once-more-please")
        db.close()
        async with replay(club.live.base, cookie) as stale:
            assert (await stale.get("/console/queue")).status_code == 303


async def test_settings_per_member_and_the_clubs_defaults_by_a_steward(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = await bruno.get("/console/settings")
        assert (
            page.status_code == 200
            and "The language you write to your agents in" in page.text
            and "/console/settings/club" not in page.text
        )
        assert "You follow the club's defaults" in page.text
        saved = await bruno.post(
            "/console/settings", {"language": "pt-BR", "on_unread": "ask"}, page="/console/settings"
        )
        assert saved.status_code == 303
        assert "You follow the club's defaults" not in (await bruno.get("/console/settings")).text
        bad = await bruno.post(
            "/console/settings", {"language": "fr", "on_unread": "ask"}, page="/console/settings"
        )
        assert bad.status_code == 400
        assert (
            await bruno.post(
                "/console/settings/club",
                {"language": "en", "on_unread": "model"},
                page="/console/settings",
            )
        ).status_code == 404
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert "/console/settings/club" in (await ana.get("/console/settings")).text
        assert (
            await ana.post(
                "/console/settings/club",
                {"language": "en", "on_unread": "model"},
                page="/console/settings",
            )
        ).status_code == 303
    db = club.db()
    bruno_id, ana_id = (
        club_ops.find_principal(db, "bruno").id,
        club_ops.find_principal(db, "ana").id,
    )
    assert setting_rows.router_settings(db, bruno_id) == {"language": "pt-BR", "on_unread": "ask"}
    assert setting_rows.router_settings(db, ana_id) == {
        "language": "en",
        "on_unread": "model",
    }  # the club's
    db.close()


async def test_activity_shows_the_members_own_calls_newest_first_and_names_a_denying_rule(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        await agent.call_tool("whoami", {})
        denied = await agent.call_tool(
            "log_evidence", {"kind": "rumour", "title": "Secret-Title-123"}
        )
        assert denied.is_error
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = (await bruno.get("/console/activity")).text
        assert page.index("log_evidence") < page.index(">whoami<")  # newest first
        # the rule read as its sentence (from the rule book), then its name; never the call's values
        assert (
            "Rule not met: kind is one of [reference, portfolio, introduction, event, publication]"
            in page
            and "(rule “Evidence kinds from the club&#39;s list”)" in page
            and "denied by a rule" in page
        )
        assert "Secret-Title-123" not in page and "rumour" not in page  # never a call's values
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert (
            "log_evidence" not in (await ana.get("/console/activity")).text
        )  # only one's own agents


async def test_pages_use_the_consoles_own_stylesheet_and_no_inline_style(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        home = await ana.get("/console")
        assert (
            '<link rel="stylesheet" href="/console/static/console.css">' in home.text
            and "<style" not in home.text
        )
        assert "unsafe-inline" not in home.headers["content-security-policy"]
        assert (
            "Waiting for you" in home.text and "Your agents" in home.text and "Expires" in home.text
        )
        css = await ana.get("/console/static/console.css")
        assert (
            css.status_code == 200
            and css.headers["content-type"].startswith("text/css")
            and "--accent" in css.text
        )
        assert (await ana.get("/console/static/..%2Fpages.py")).status_code == 404
        assert (await ana.get("/console/static/nothing.css")).status_code == 404


async def test_oauth_grants_show_the_clients_name_and_scopes_in_one_style(club):
    from server.store import oauth as oauth_rows
    from server.store.database import now

    db = club.db()
    bruno = club_ops.find_principal(db, "bruno")
    agent_id = club_ops.find_agent(db, "bruno")[0]
    oauth_rows.add_client(db, "client-0123456789abcdef", None, {"client_name": "Claude Desktop"}, 0)
    oauth_rows.add_grant_once(
        db,
        {
            "family": "fam-1",
            "client_id": "client-0123456789abcdef",
            "principal_id": bruno.id,
            "agent_id": agent_id,
            "scope": "inbox:read club:read",
            "resource": club.url,
            "created_at": now(),
        },
    )
    db.close()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as console:
        page = (await console.get("/console/agents")).text
        grants = page.split('id="grants-h"')[1]
        assert "Claude Desktop" in grants and "client-012345" not in grants
        assert (
            "<li>Read your own profile and signed mandate.</li>"
            "<li>Read your threads, answers and later decisions.</li>" in grants
        )  # in the member's words, as for tokens
        asked = await console.post("/console/grants/fam-1/revoke", {}, page="/console/agents")
        assert asked.status_code == 200 and "Take back Claude Desktop&#39;s access?" in asked.text
        revoked = await console.post(
            "/console/grants/fam-1/revoke", {"confirm": "yes"}, page="/console/agents"
        )
        assert revoked.status_code == 303
        assert (
            await console.post("/console/grants/fam-1x/revoke", {}, page="/console/agents")
        ).status_code == 404
