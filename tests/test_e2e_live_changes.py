"""Changes to mandates, tokens and principals reach sessions that are already open."""

from __future__ import annotations

from datetime import timedelta

import anyio
import mcp_types as types

from server.identity import principals as club_ops
from server.identity import mandates
from server.identity import tokens
from tests.conftest import connect, tool_names
from tests.test_e2e_lanes import GUEST, MEMBER


def narrow_bruno(club, scopes: list[str]) -> None:
    db = club.db()
    manifest = club.manifest()
    mandates.sign_mandate(
        db, club.key(), principal_id=club_ops.find_principal(db, "bruno").id, topics=["databases"],
        reveal=["public"], quotable=False, scopes=scopes, known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes, valid_for=timedelta(days=30),
    )
    db.close()


async def test_narrowing_a_mandate_reaches_an_open_legacy_session(club):
    changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with connect(club.url, club.tokens.member.token, "legacy", message_handler=on_message) as client:
        assert await tool_names(client) == MEMBER
        narrow_bruno(club, ["club:read", "inbox:read"])
        with anyio.fail_after(10):
            await changed.wait()
        assert await tool_names(client) == GUEST + ["my_profile", "my_mandate", "plan", "inbox"]
        who = (await client.call_tool("whoami", {})).structured_content
        assert who["effective_scopes"] == ["club:read", "inbox:read"]


async def test_narrowing_a_mandate_reaches_a_2026_listen_stream(club):
    async with connect(club.url, club.tokens.member.token, "auto") as client:
        assert client.protocol_version == "2026-07-28"
        assert await tool_names(client) == MEMBER
        async with client.listen(tools_list_changed=True) as subscription:
            narrow_bruno(club, ["club:read"])
            with anyio.fail_after(10):
                async for event in subscription:
                    assert type(event).__name__ == "ToolsListChanged"
                    break
        assert await tool_names(client) == GUEST + ["my_profile", "my_mandate", "plan"]


async def test_the_next_request_sees_the_change_even_without_notifications(club):
    async with connect(club.url, club.tokens.member.token, "auto") as client:
        assert "search_directory" in await tool_names(client)
        narrow_bruno(club, ["club:read", "directory:read"])
        names = await tool_names(client)
        assert "search_directory" in names and "inbox" not in names


async def test_tampering_with_the_stored_mandate_drops_the_agent_to_zero_scopes(club):
    async with connect(club.url, club.tokens.member.token, "legacy") as client:
        assert await tool_names(client) == MEMBER
        db = club.db()
        bruno = club_ops.find_principal(db, "bruno")
        db.execute(
            "UPDATE mandates SET body = replace(body, '\"quotable\":false', '\"quotable\":true') "
            "WHERE principal_id = ?",
            [bruno.id],
        )
        db.close()
        assert await tool_names(client) == GUEST
        who = (await client.call_tool("whoami", {})).structured_content
        assert who["lane"] == "member" and who["effective_scopes"] == []
        assert who["mandate"]["state"] == "invalid_signature"


async def test_revoking_and_suspending_refuse_the_very_next_request(club):
    db = club.db()
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    spare = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    async with connect(club.url, spare.token, "auto") as client:
        assert "my_profile" in await tool_names(client)
        tokens.revoke(db, spare.public_id)
        try:
            await client.list_tools()
        except Exception as exc:  # the SDK surfaces the 401 as an error
            assert "error" in str(exc).lower()
        else:
            raise AssertionError("a revoked token was served")
    async with connect(club.url, club.tokens.applicant.token, "auto") as client:
        assert "log_evidence" in await tool_names(client)
        club_ops.set_status(db, "carla", "suspended")
        try:
            await client.list_tools()
        except Exception:
            pass
        else:
            raise AssertionError("a suspended principal's token was served")
    db.close()


async def test_admission_widens_the_same_token_on_its_next_request(club):
    async with connect(club.url, club.tokens.applicant.token, "auto") as client:
        assert "search_directory" not in await tool_names(client)
        db = club.db()
        club_ops.set_status(db, "carla", "member")
        manifest = club.manifest()
        mandates.sign_mandate(
            db, club.key(), principal_id=club_ops.find_principal(db, "carla").id, topics=["product"],
            reveal=["public"], quotable=False, scopes=sorted(manifest.agent_scopes),
            known_scopes=frozenset(manifest.scopes), agent_scopes=manifest.agent_scopes, valid_for=timedelta(days=30),
        )
        db.close()
        assert await tool_names(client) == MEMBER
