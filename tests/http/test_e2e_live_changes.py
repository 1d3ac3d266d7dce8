"""Changes to mandates, tokens and principals reach sessions that are already open."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from server.identity import mandates, tokens
from server.identity import principals as club_ops
from tests.access.test_e2e_lanes import GUEST, MEMBER
from tests.conftest import connect, tool_names


def narrow_bruno(club, scopes: list[str]) -> None:
    db = club.db()
    manifest = club.manifest()
    mandates.sign_mandate(
        db,
        club.key(),
        principal_id=club_ops.find_principal(db, "bruno").id,
        topics=["databases"],
        reveal=["public"],
        quotable=False,
        scopes=scopes,
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(days=30),
    )
    db.close()


@pytest.mark.stateful_sessions  # pushed to a handshake-era session: stateless sessions have no stream
async def test_narrowing_a_mandate_reaches_an_open_legacy_session(club):
    changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with connect(
        club.url, club.tokens.member.token, "legacy", message_handler=on_message
    ) as client:
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
            heard = []
            with anyio.fail_after(10):
                async for event in subscription:
                    heard.append(event)
                    break
            assert heard, "the stream ended without a notification"
            assert type(heard[0]).__name__ == "ToolsListChanged"
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


@contextlib.asynccontextmanager
async def recording(url: str, token: str, mode: str, seen: list[tuple[int, str]]):
    """The SDK's client over real HTTP, noting each response's status and WWW-Authenticate."""

    async def note(response) -> None:
        seen.append((response.status_code, response.headers.get("www-authenticate", "")))

    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(
        headers=headers, timeout=30, event_hooks={"response": [note]}
    ) as http:
        async with Client(
            streamable_http_client(url, http_client=http), mode=mode, cache=None
        ) as client:
            yield client


async def refused_next(client, seen: list[tuple[int, str]], reason: str) -> None:
    """The very next request is refused with a 401 naming `reason`; nothing is served."""
    before = len(seen)
    with pytest.raises(MCPError):
        await client.list_tools()
    after = seen[before:]
    assert after and after[0][0] == 401, after
    assert after[0][1].startswith('Bearer error="invalid_token"') and reason in after[0][1], after
    assert all(status == 401 for status, _ in after), after


async def test_revoking_and_suspending_refuse_the_very_next_request(club):
    db = club.db()
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    spare = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    seen: list[tuple[int, str]] = []
    async with recording(club.url, spare.token, "auto", seen) as client:
        assert "my_profile" in await tool_names(client)
        tokens.revoke(db, spare.public_id)
        await refused_next(client, seen, "token was revoked")
    seen.clear()
    async with recording(club.url, club.tokens.applicant.token, "auto", seen) as client:
        assert "log_evidence" in await tool_names(client)
        club_ops.set_status(db, "carla", "suspended")
        await refused_next(client, seen, "principal carla is suspended")
    db.close()


async def test_admission_widens_the_same_token_on_its_next_request(club):
    async with connect(club.url, club.tokens.applicant.token, "auto") as client:
        assert "search_directory" not in await tool_names(client)
        db = club.db()
        club_ops.set_status(db, "carla", "member")
        manifest = club.manifest()
        mandates.sign_mandate(
            db,
            club.key(),
            principal_id=club_ops.find_principal(db, "carla").id,
            topics=["product"],
            reveal=["public"],
            quotable=False,
            scopes=sorted(manifest.agent_scopes),
            known_scopes=frozenset(manifest.scopes),
            agent_scopes=manifest.agent_scopes,
            valid_for=timedelta(days=30),
        )
        db.close()
        assert await tool_names(client) == MEMBER


async def test_the_live_watch_of_a_process_started_while_the_store_is_down_waits_for_it():
    """A worker that starts during an outage (its first revision read refused) keeps watching and reads
    the revision once the store answers; its task, and so the process's lifespan, does not end."""
    from server.access import Access
    from server.http.live import LiveSessions
    from server.manifest.loading import load_manifest
    from server.store.database import StoreUnavailable

    reads: list[int] = []

    def revision() -> int:
        reads.append(len(reads))
        if len(reads) <= 3:
            raise StoreUnavailable("the store did not answer")
        return 7

    live = LiveSessions(
        Access(load_manifest(), None), revision, lambda ctx: None, poll_seconds=0.01
    )  # type: ignore[arg-type]
    with anyio.move_on_after(0.5):
        await live.watch()  # cancelled here, never ended by the outage
    assert len(reads) > 4  # refused three times, then read and polled on
