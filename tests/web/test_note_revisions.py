"""Approving a note approves the text the member read (DESIGN rule 9; issue 42).

Bruno opens Notes; his agent then replaces the note's text; Bruno presses the button on the form he
was shown. Nothing is approved, and the page shows him the new text. The same for "Let my agent relay
it as written" on an approved note whose text was swapped for a price and a phone number. Approving a
note whose topic the signed mandate does not cover says so, offers to add the topic, and does."""

from __future__ import annotations

import re
from html import unescape

from server.identity import mandates
from tests.conftest import connect
from tests.console_helpers import ConsoleUser

SWAP = "Bruno's rate is R$ 900 a day; pay the deposit by pix to +55 11 91234-5678 to lock the date"


def _form(page: str, note_id: int) -> dict[str, str]:
    """The fields of a note's review form as the page shows them (the button's value aside)."""
    card = page[page.index(f'id="note-{note_id}"') :]
    card = card[: card.index("</article>")]
    form = card[card.index(f'action="/console/notes/{note_id}/review"') :]
    form = form[: form.index("</form>")]
    return {
        unescape(name): unescape(value)
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)
    }


def _status(club, note_id: int) -> tuple[str, str, int]:
    row = club.db().execute("SELECT status, text, relay FROM briefing WHERE id = ?", [note_id])
    return tuple(row.fetchone())


async def _propose(agent, text: str, topic: str = "databases", note_id: int | None = None) -> int:
    args = {"topic": topic, "text": text, "visibility": "members"}
    result = await agent.call_tool(
        "update_briefing", {**args, **({"note_id": note_id} if note_id else {})}
    )
    assert not result.is_error, result.content
    return result.structured_content["id"]


async def test_a_note_swapped_after_the_member_read_it_is_not_approved(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        note_id = await _propose(agent, "Bruno reviews pull requests within two days.")
        async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
            page = (await bruno.get("/console/notes")).text
            shown = _form(page, note_id)  # what Bruno read, as his browser holds it
            await _propose(agent, SWAP, note_id=note_id)  # the agent swaps the text
            response = await bruno.http.post(
                f"/console/notes/{note_id}/review", data={**shown, "action": "approve"}
            )
            assert response.status_code == 409
            assert "nothing was approved" in unescape(response.text)
            assert "R$ 900 a day" in unescape(response.text)  # the new text, to be read
            assert _status(club, note_id)[:2] == ("pending", SWAP)
            # read again, it can be approved: the form now names the text he read
            again = _form((await bruno.get("/console/notes")).text, note_id)
            approved = await bruno.http.post(
                f"/console/notes/{note_id}/review", data={**again, "action": "approve"}
            )
            assert approved.status_code == 303
            assert _status(club, note_id) == ("approved", SWAP, 0)


async def test_relay_as_written_applies_only_to_the_text_the_member_read(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        note_id = await _propose(agent, "Bruno's zine workshop costs 20 euros.")
        async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
            first = _form((await bruno.get("/console/notes")).text, note_id)
            await bruno.http.post(
                f"/console/notes/{note_id}/review", data={**first, "action": "approve"}
            )
            assert _status(club, note_id)[0] == "approved"
            page = (await bruno.get("/console/notes")).text
            assert "Let my agent relay it as written" in page
            card = page[page.index(f'id="note-{note_id}"') :][:4000]
            card = card[: card.index("</article>")]
            assert "Unless you tick" not in card  # the tick is a button now, and it says so
            shown = _form(page, note_id)
            await _propose(agent, SWAP, note_id=note_id)
            response = await bruno.http.post(
                f"/console/notes/{note_id}/review",
                data={**shown, "relay": "yes", "action": "approve"},
            )
            assert response.status_code == 409
            assert _status(club, note_id) == ("pending", SWAP, 0)


async def test_approving_a_note_outside_the_mandate_says_so_and_can_add_the_topic(club):
    async with connect(club.url, club.tokens.member.token) as agent:
        note_id = await _propose(agent, "Bruno sails on weekends.", topic="sailing")
        proposed = await agent.call_tool("list_briefing", {})
        (listed,) = [n for n in proposed.structured_content["notes"] if n["id"] == note_id]
        assert "does not cover the topic" in listed["when_approved"]
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        page = (await bruno.get("/console/notes")).text
        assert "Approve and add \u201csailing\u201d to my mandate" in unescape(page)
        shown = _form(page, note_id)
        done = await bruno.http.post(
            f"/console/notes/{note_id}/review", data={**shown, "action": "approve"}
        )
        said = unescape((await bruno.get("/console/notes")).text)
        assert done.status_code == 303 and "Your agent may quote it now" not in said
        assert "will still come to you in person" in said and "Your mandate covers:" in said
        added = await bruno.http.post(
            f"/console/notes/{note_id}/review",
            data={**_form(said, note_id), "action": "approve_add"},
        )
        assert added.status_code == 303
    db = club.db()
    bruno_id = db.execute("SELECT id FROM principals WHERE handle = 'bruno'").fetchone()[0]
    body = mandates.current(db, club.key(), bruno_id).body
    assert body is not None and "sailing" in body.topics
