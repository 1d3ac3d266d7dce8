"""A credential that fails gets 401 with its reason and resource_metadata: never a fall to guest."""

from __future__ import annotations

from datetime import timedelta

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from server.identity import principals as club_ops
from server.identity import tokens

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
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def post(url: str, authorization: str | None) -> httpx2.Response:
    headers = dict(ACCEPT)
    if authorization is not None:
        headers["Authorization"] = authorization
    async with httpx2.AsyncClient() as http:
        return await http.post(url, json=INIT, headers=headers)


def broken_credentials(club) -> dict[str, tuple[str, str]]:
    """Each case: name → (Authorization header value, reason the server must give)."""
    db = club.db()
    bruno = club_ops.find_principal(db, "bruno")
    agent_id, _ = club_ops.find_agent(db, "bruno")
    revoked = tokens.mint(db, principal_id=bruno.id, agent_id=agent_id, scopes={"club:read"})
    tokens.revoke(db, revoked.token)
    expired = tokens.mint(
        db,
        principal_id=bruno.id,
        agent_id=agent_id,
        scopes={"club:read"},
        ttl=timedelta(seconds=-5),
    )

    ana = club_ops.find_principal(db, "ana")
    moved_agent = club_ops.add_agent(db, "ana", "helper")
    moved = tokens.mint(db, principal_id=ana.id, agent_id=moved_agent, scopes={"club:read"})
    db.execute("UPDATE agents SET principal_id = ? WHERE id = ?", [bruno.id, moved_agent])

    gone_agent = club_ops.add_agent(db, "bruno", "ephemeral")
    deleted = tokens.mint(db, principal_id=bruno.id, agent_id=gone_agent, scopes={"club:read"})
    db.execute("DELETE FROM agents WHERE id = ?", [gone_agent])

    dora = club_ops.add_principal(db, "dora", "Dora", status="member")
    dora_agent = club_ops.add_agent(db, "dora")
    suspended = tokens.mint(db, principal_id=dora.id, agent_id=dora_agent, scopes={"club:read"})
    club_ops.set_status(db, "dora", "suspended")
    db.close()
    return {
        "unknown": ("Bearer pa_thisTokenWasNeverMinted", "unknown token"),
        "revoked": (f"Bearer {revoked.token}", "token was revoked"),
        "expired": (f"Bearer {expired.token}", "token expired at"),
        "malformed header": (f"Token {club.tokens.member.token}", "malformed Authorization header"),
        "empty bearer": ("Bearer", "empty bearer token"),
        "suspended principal": (f"Bearer {suspended.token}", "principal dora is suspended"),
        "agent moved": (f"Bearer {moved.token}", "no longer belongs to the principal"),
        "agent deleted": (f"Bearer {deleted.token}", "agent no longer exists"),
    }


async def test_bad_credential_matrix(club):
    for name, (header, reason) in broken_credentials(club).items():
        response = await post(club.url, header)
        assert response.status_code == 401, name
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith('Bearer error="invalid_token"'), name
        assert (
            f'resource_metadata="{club.live.base}/.well-known/oauth-protected-resource/mcp"'
            in challenge
        ), name
        assert reason in response.json()["error_description"], name
        assert reason in challenge, name
        assert "parley-lane" not in response.headers, name


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sdk_client_with_a_bad_token_is_refused_not_downgraded(club, mode):
    seen: list[tuple[int, str]] = []

    async def note(response) -> None:
        seen.append((response.status_code, response.headers.get("www-authenticate", "")))

    listed = None
    with pytest.raises((MCPError, ExceptionGroup)) as err:
        async with httpx2.AsyncClient(
            headers={"Authorization": "Bearer pa_nope"},
            timeout=30,
            event_hooks={"response": [note]},
        ) as http:
            async with Client(
                streamable_http_client(club.url, http_client=http), mode=mode, cache=None
            ) as client:
                listed = await client.list_tools()
    assert listed is None  # no session, not even a guest one
    if isinstance(err.value, ExceptionGroup):
        assert err.group_contains(MCPError), err.value
    # every response the client saw was the 401 naming the reason: nothing was ever served
    assert seen and all(status == 401 for status, _ in seen), seen
    assert all(
        challenge.startswith('Bearer error="invalid_token"') and "unknown token" in challenge
        for _, challenge in seen
    ), seen


async def test_no_header_at_all_is_guest_not_401(club):
    response = await post(club.url, None)
    assert response.status_code == 200 and response.headers["parley-lane"] == "guest"


async def test_a_rejected_token_never_appears_in_the_server_log(club, caplog):
    secret = "pa_" + "s3cr3t" * 7
    response = await post(club.url, f"Bearer {secret}")
    assert response.status_code == 401
    assert secret not in caplog.text and "s3cr3t" not in caplog.text
