"""The console's ways on, over real HTTP: a declined applicant applies again (a refused statement kept, its
message at its field), a steward reconsiders a decline, suspends and reinstates only after a confirmation,
settings go back to the club's defaults, a new mandate version keeps its expiry unless told, and Home draws
the week (refusals by rule in the rule's own words, never a call's values)."""

from __future__ import annotations

from server.identity import principals
from server.store import console as console_rows
from server.store import settings as setting_rows
from tests.conftest import connect
from tests.console_helpers import ConsoleUser


async def decline_carla(club) -> None:
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        done = await ana.post(
            "/console/applicants/carla/decline",
            {"reason": "Show us a project.", "confirm": "yes"},
            page="/console/applicants",
        )
        assert done.status_code == 303


async def test_a_declined_applicant_applies_again_and_a_steward_can_reconsider(club):
    await decline_carla(club)
    db = club.db()
    carla_id = principals.find_principal(db, "carla").id
    async with ConsoleUser(club.live.base, "carla", club.tokens.passwords["carla"]) as carla:
        home = (await carla.get("/console")).text
        assert "Show us a project." in home and "You can apply again" in home
        refused = await carla.post("/console/application", {"statement": "   "})
        assert refused.status_code == 400 and 'id="statement-error"' in refused.text
        assert 'aria-describedby="statement-error"' in refused.text and "autofocus" in refused.text
        assert (
            console_rows.application_decision(db, carla_id).status == "declined"
        )  # nothing was sent
        sent = await carla.post("/console/application", {"statement": "I shipped a calendar."})
        assert sent.status_code == 303
        assert console_rows.application_decision(db, carla_id).status == "open"
        again = await carla.post(
            "/console/application", {"statement": "twice?"}
        )  # nothing declined to follow up
        assert (
            again.status_code == 303
            and console_rows.application_decision(db, carla_id).status == "open"
        )
    await decline_carla(club)
    async with ConsoleUser(
        club.live.base, "bruno", club.tokens.passwords["bruno"]
    ) as bruno:  # not a steward
        assert (await bruno.post("/console/applicants/carla/reconsider", {})).status_code == 404
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        undone = await ana.post(
            "/console/applicants/carla/reconsider", {}, page="/console/applicants"
        )
        assert (
            undone.status_code == 303
            and console_rows.application_decision(db, carla_id).status == "open"
        )
        twice = await ana.post(
            "/console/applicants/carla/reconsider", {}, page="/console/applicants"
        )
        assert twice.status_code == 404  # nothing declined to reconsider
    db.close()


async def test_suspending_asks_first_and_reinstating_restores_the_member(club):
    db = club.db()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        assert (await bruno.get("/console/members")).status_code == 404  # stewards only
        assert (
            await bruno.post("/console/members/ana/suspend", {"confirm": "yes"})
        ).status_code == 404
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        found = (await ana.get("/console/members?q=COSTA")).text
        assert "Bruno Costa" in found and "Carla" not in found
        assert "Carla Mendes" in (await ana.get("/console/members?status=applicant")).text
        for query in ("q=" + "%25" * 5000, "q=<script>", "status=owner", "q=_&status=%ff"):
            odd = await ana.get(f"/console/members?{query}")
            assert odd.status_code == 200 and "<script>" not in odd.text.split("<main")[1]
        controlled = await ana.get(
            "/console/members?q=%00%0d%0a<script>"
        )  # refused at the edge, like any form
        assert controlled.status_code == 400 and "<script>" not in controlled.text
        asked = await ana.post("/console/members/bruno/suspend", {}, page="/console/members")
        assert asked.status_code == 200 and "Suspend Bruno Costa (@bruno)?" in asked.text
        assert principals.find_principal(db, "bruno").status == "member"  # asking changed nothing
        done = await ana.post(
            "/console/members/bruno/suspend", {"confirm": "yes"}, page="/console/members"
        )
        assert (
            done.status_code == 303 and principals.find_principal(db, "bruno").status == "suspended"
        )
        myself = await ana.post(
            "/console/members/ana/suspend", {"confirm": "yes"}, page="/console/members"
        )
        assert myself.status_code == 303 and principals.find_principal(db, "ana").status == "member"
        back = await ana.post("/console/members/bruno/reinstate", {}, page="/console/members")
        assert back.status_code == 303 and principals.find_principal(db, "bruno").status == "member"
        assert (
            await ana.post("/console/members/nobody/suspend", {}, page="/console/members")
        ).status_code == 404
    db.close()


async def test_settings_go_back_to_the_clubs_defaults_only_when_confirmed(club):
    db = club.db()
    bruno_id = principals.find_principal(db, "bruno").id
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        nothing = await bruno.post("/console/settings/reset", {}, page="/console/settings")
        assert nothing.status_code == 303  # already following the club
        await bruno.post(
            "/console/settings", {"language": "pt-BR", "on_unread": "ask"}, page="/console/settings"
        )
        asked = await bruno.post("/console/settings/reset", {}, page="/console/settings")
        assert asked.status_code == 200 and "Go back to the club&#39;s defaults?" in asked.text
        assert console_rows.has_own_router_settings(db, bruno_id)
        done = await bruno.post(
            "/console/settings/reset", {"confirm": "yes"}, page="/console/settings"
        )
        assert done.status_code == 303 and not console_rows.has_own_router_settings(db, bruno_id)
        assert setting_rows.router_settings(db, bruno_id) == setting_rows.router_settings(
            db, setting_rows.CLUB
        )
        wrong = await bruno.post(
            "/console/password",
            {"current": "not it", "new": "x" * 20, "again": "x" * 20},
            page="/console/settings",
        )
        assert wrong.status_code == 400 and 'aria-describedby="current-error"' in wrong.text
    db.close()


async def test_a_new_mandate_version_keeps_its_expiry_unless_told(club):
    db = club.db()
    bruno_id = principals.find_principal(db, "bruno").id
    from server.identity import mandates

    before = mandates.current(db, club.key(), bruno_id).body
    form = {
        "topics": ", ".join(before.topics + ["gardening"]),
        "reveal": before.reveal,
        "scope": before.scopes,
        "quotable": "yes" if before.quotable else "",
        "days": "",
    }
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        review = await bruno.post("/console/mandate", form, page="/console/mandate")
        assert (
            "starts answering about “gardening”" in review.text
            and "still expires on" in review.text
        )
        assert (
            mandates.current(db, club.key(), bruno_id).body.version == before.version
        )  # not signed yet
        signed = await bruno.post(
            "/console/mandate", {**form, "confirm": "yes"}, page="/console/mandate"
        )
        assert signed.status_code == 303
        after = mandates.current(db, club.key(), bruno_id).body
        assert after.version == before.version + 1 and after.expires_at == before.expires_at
        assert "gardening" in after.topics
        moved = await bruno.post(
            "/console/mandate", {**form, "days": "10", "confirm": "yes"}, page="/console/mandate"
        )
        assert moved.status_code == 303
        assert mandates.current(db, club.key(), bruno_id).body.expires_at < before.expires_at
    db.close()


async def test_home_draws_the_week_with_refusals_in_the_rules_words(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        denied = await agent.call_tool(
            "log_evidence", {"kind": "rumour", "title": "Secret-Title-123"}
        )
        assert denied.is_error
        await agent.call_tool(
            "ask", {"member": "ana", "question": "Does Ana speak at conferences?"}
        )
    club.settled()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        home = (await bruno.get("/console")).text
    refusals = home.split('id="week-r-h"')[1].split("</section>")[0]
    assert (
        '<svg class="chart" role="img"' in refusals
        and "kind is one of" in refusals
        and ": 1" in refusals
    )
    assert "Secret-Title-123" not in home and "rumour" not in home  # never a call's values
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        home = (await ana.get("/console")).text
    asked = home.split('id="week-q-h"')[1].split("</section>")[0]
    assert "1 asked" in asked.replace("</span> ", " ").replace('<span class="stat">', "")
    assert "waiting for you, by how long: under an hour: 1" in home.split('id="week-w-h"')[1]


async def test_a_member_who_narrowed_on_purpose_is_not_nagged_on_home(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        narrowed = await bruno.post(
            "/console/mandate",
            {
                "topics": "databases",
                "reveal": ["public"],
                "scope": ["club:read"],
                "days": "",
                "confirm": "yes",
            },
            page="/console/mandate",
        )
        assert narrowed.status_code == 303
        assert "Re-sign with everything members can do" not in (await bruno.get("/console")).text
        mandate = (await bruno.get("/console/mandate")).text  # offered back there, quietly
        assert (
            "Re-sign with everything members can do" in mandate
            and "you are a member now" not in mandate
        )
