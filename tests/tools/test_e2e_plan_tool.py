"""The plan tool over real HTTP: the router sees only the caller's own catalogue."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import connect


async def plan(client, turn: str, language: str = "en", **extra) -> dict:
    result = await client.call_tool("plan", {"turn": turn, "language": language, **extra})
    assert not result.is_error, result.content
    return result.structured_content


async def test_a_member_plans_against_the_directory(club):
    async with connect(club.url, club.tokens.member.token) as member:
        planned = await plan(member, "search the directory for design")
        assert planned["outcome"] == "run"
        step = planned["steps"][0]
        assert step["selection"]["tool"] == "search_directory" and step["selection"][
            "arguments"
        ] == {"query": "design"}
        portuguese = await plan(member, "procure no diretório por design", "pt-BR")
        assert portuguese["steps"][0]["selection"]["tool"] == "search_directory"
        assert portuguese["vocabulary_digest"].startswith("sha256:")


async def test_an_applicant_never_sees_a_hidden_tool_in_a_plan(club):
    async with connect(club.url, club.tokens.applicant.token) as applicant:
        for turn in (
            "search the directory for design",
            "show member @ana",
            "update my notes",
            "zork",
        ):
            planned = await plan(applicant, turn)
            text = str(planned)
            for hidden in (
                "search_directory",
                "search directory",
                "view_member",
                "view member",
                "update_briefing",
                "update briefing",
                "list_briefing",
                "amend_mandate",
            ):
                assert hidden not in text, (turn, hidden, planned)
        mine = await plan(applicant, "show my profile")
        assert mine["steps"][0]["selection"]["tool"] == "my_profile"


async def test_the_guest_lane_has_no_plan_tool(club):
    async with connect(club.url) as guest:
        with pytest.raises(MCPError, match="Unknown tool: plan"):
            await guest.call_tool("plan", {"turn": "show my profile"})


async def test_plan_answers_an_ask_and_refuses_bad_input(club):
    async with connect(club.url, club.tokens.member.token) as member:
        asked = await plan(member, "view member")
        assert asked["outcome"] == "ask" and asked["steps"][0]["selection"]["missing"] == ["handle"]
        answered = await plan(
            member, "@bruno", awaiting={"tool": "view_member", "missing": ["handle"]}
        )
        assert answered["outcome"] == "run"
        assert answered["steps"][0]["selection"]["arguments"] == {"handle": "bruno"}
        bad = await member.call_tool("plan", {"turn": "hello", "language": "es"})
        assert bad.is_error and "language: Input should be 'en' or 'pt-BR'" in bad.content[0].text


async def test_plan_binds_a_member_from_the_handles_the_caller_can_see(club):
    async with connect(club.url, club.tokens.member.token) as member:
        planned = await plan(member, "ask ana what she thinks about rust in production")
        step = planned["steps"][0]["selection"]
        assert planned["outcome"] == "run" and step["tool"] == "ask"
        assert (
            step["arguments"]["member"] == "ana"
            and "ana" not in step["arguments"]["question"].split()[:1]
        )
        unknown = await plan(member, "ask zed what he thinks about rust in production")
        assert (
            unknown["outcome"] == "ask" and "member" in unknown["steps"][0]["selection"]["missing"]
        )


async def test_plan_reads_the_members_settings_when_the_request_names_no_language(club):
    db = club.db()
    from server.store.settings import set_router_settings

    bruno = db.execute("SELECT id FROM principals WHERE handle = 'bruno'").fetchone()[0]
    set_router_settings(db, bruno, "pt-BR", "ask")
    db.close()
    async with connect(club.url, club.tokens.member.token) as member:
        result = await member.call_tool("plan", {"turn": "procure no diretório por design"})
        planned = result.structured_content
    assert (
        planned["language"] == "pt-BR"
        and planned["steps"][0]["selection"]["tool"] == "search_directory"
    )
