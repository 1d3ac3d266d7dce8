"""End to end over real HTTP: each credential sees exactly its lane's tools, in both protocol eras."""

from __future__ import annotations

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from server.manifest.loading import load_manifest
from tests.conftest import connect, tool_names


def declared_tools(persona: str, lane: str | None, principal: bool = False) -> list[str]:
    """What the default manifest declares a caller sees, read from its declarations alone: the
    persona's tools, in the manifest's tool order, that are public or whose scope the lane's ceiling
    holds (an agent never holds a principal-only scope). No code of the server is asked."""
    manifest = load_manifest()
    scopes = set() if lane is None else set(manifest.lanes[lane].ceiling)
    if not principal:
        scopes &= {name for name, scope in manifest.scopes.items() if scope.agents}
    return [
        name
        for name, tool in manifest.tools.items()
        if name in manifest.agents[persona].tools
        and (
            tool.access == "public" if lane is None else tool.needs is None or tool.needs in scopes
        )
    ]


# Each lane's tools follow the manifest: a new tool needs no edit here.
GUEST = declared_tools("lobby", None)
APPLICANT = declared_tools("applicant", "applicant")
MEMBER = declared_tools("member", "member")
PRINCIPAL = declared_tools("steward", "member", principal=True)  # ana: a steward, on her own token


def member_tools_within(*scopes: str) -> list[str]:
    """A member's agent's tools once its mandate grants only these scopes (public tools stay)."""
    declared = load_manifest().tools
    return [
        name for name in MEMBER if declared[name].needs is None or declared[name].needs in scopes
    ]


MODES = ["legacy", "auto"]


def expected_for(club):
    return {
        None: GUEST,
        club.tokens.applicant.token: APPLICANT,
        club.tokens.member.token: MEMBER,
        club.tokens.steward_principal.token: PRINCIPAL,
    }


@pytest.mark.parametrize("mode", MODES)
async def test_each_credential_sees_exactly_its_tools(club, mode):
    for token, expected in expected_for(club).items():
        async with connect(club.url, token, mode) as client:
            assert await tool_names(client) == expected
            who = (await client.call_tool("whoami", {})).structured_content
            assert who["tools_visible"] == expected
            assert who["tools_hidden"] == len(load_manifest().tools) - len(expected)


@pytest.mark.parametrize("mode", MODES)
async def test_hidden_tools_fail_exactly_as_unknown_ones(club, mode):
    every = set(load_manifest().tools)
    for token, expected in expected_for(club).items():
        async with connect(club.url, token, mode) as client:
            with pytest.raises(MCPError) as nonexistent:
                await client.call_tool("no_such_tool", {})
            for hidden in sorted(every - set(expected)):
                with pytest.raises(MCPError) as err:
                    await client.call_tool(hidden, {})
                assert err.value.error.code == nonexistent.value.error.code == -32602
                assert err.value.error.message == f"Unknown tool: {hidden}"
                assert nonexistent.value.error.message == "Unknown tool: no_such_tool"
                assert err.value.error.data == nonexistent.value.error.data


@pytest.mark.parametrize("mode", MODES)
async def test_guest_lane_is_loud(club, mode, caplog):
    async with connect(club.url, None, mode) as client:
        assert "GUEST lane because no credential was sent" in client.instructions
        assert "Authorization: Bearer" in client.instructions
        who = (await client.call_tool("whoami", {})).structured_content
        assert who["lane"] == "guest" and who["why"] == "no credential was sent"
        assert who["credential"] == {
            "sent": False,
            "kind": "none",
            "valid": False,
            "token_id": None,
        }
        assert "Authorization: Bearer" in who["how_to_leave"]
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            club.url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert response.headers["parley-lane"] == "guest"
    assert "no credential" in response.headers["parley-lane-reason"]


@pytest.mark.parametrize("mode", MODES)
async def test_member_instructions_name_lane_and_scopes(club, mode):
    async with connect(club.url, club.tokens.member.token, mode) as client:
        text = client.instructions
        assert "MEMBER lane" in text and "bruno" in text and "directory:read" in text
        assert "GUEST" not in text


async def test_resource_metadata_is_served(club):
    async with httpx2.AsyncClient() as http:
        for path in (
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
        ):
            meta = (await http.get(club.live.base + path)).json()
            assert meta["resource"] == club.url
            assert meta["authorization_servers"] == [club.live.base]
            assert "mandate:write" not in meta["scopes_supported"] and meta[
                "bearer_methods_supported"
            ] == ["header"]
