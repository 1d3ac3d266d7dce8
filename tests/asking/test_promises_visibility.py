"""A resource the caller cannot reach answers exactly as one that does not exist: never "forbidden",
never the scope it would need."""

from __future__ import annotations

from datetime import timedelta

import pytest
from mcp.shared.exceptions import MCPError

from server.identity import mandates
from server.identity import principals as club_ops
from tests.conftest import connect

INBOX = "parley://inbox"
NOWHERE = "parley://no-such-resource"


async def refusal(call) -> tuple[int, str, object]:
    with pytest.raises(MCPError) as err:
        await call
    return err.value.error.code, err.value.error.message, err.value.error.data


async def assert_hidden_like_missing(client, uri: str) -> None:
    listed = [str(r.uri) for r in (await client.list_resources()).resources]
    assert uri not in listed
    missing = await refusal(client.read_resource(NOWHERE))
    hidden = await refusal(client.read_resource(uri))
    assert missing == (-32002, f"Resource not found: {NOWHERE}", missing[2])
    assert hidden == (-32002, f"Resource not found: {uri}", missing[2])
    for text in (hidden[1], str(hidden[2])):
        assert "inbox:read" not in text and "orbidden" not in text and "scope" not in text.lower()


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_the_inbox_is_not_found_for_a_guest(club):
    async with connect(club.url, None, "legacy") as guest:
        await assert_hidden_like_missing(guest, INBOX)
        assert await refusal(guest.subscribe_resource(INBOX)) == (
            -32002,
            f"Resource not found: {INBOX}",
            (await refusal(guest.subscribe_resource(NOWHERE)))[2],
        )


async def test_the_inbox_is_not_found_once_the_mandate_drops_inbox_read(club):
    db = club.db()
    manifest = club.manifest()
    mandates.sign_mandate(
        db,
        club.key(),
        principal_id=club_ops.find_principal(db, "bruno").id,
        topics=["databases"],
        reveal=["public"],
        quotable=False,
        scopes=["club:read"],
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(days=30),
    )
    db.close()
    async with connect(club.url, club.tokens.member.token, "auto") as bruno:
        await assert_hidden_like_missing(bruno, INBOX)


async def test_the_inbox_is_readable_with_inbox_read(club):
    async with connect(club.url, club.tokens.member.token, "auto") as bruno:
        assert INBOX in [str(r.uri) for r in (await bruno.list_resources()).resources]
        read = await bruno.read_resource(INBOX)
        assert read.contents[0].uri == INBOX and '"threads"' in read.contents[0].text
