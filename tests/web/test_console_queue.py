"""The Queue page teaches: "This note answers it" answers the asker and keeps the question as an example,
listed under its note on the Notes page and removable; an answer may be saved as a note; the reason a
question waits is worded when the page is drawn, and candidates are only those the answerer attached."""

from __future__ import annotations

from datetime import timedelta

from server.asking import briefing
from server.identity import mandates, principals
from tests.conftest import connect
from tests.console_helpers import ConsoleUser

FILM = "What is the studio's favourite film?"  # a close note (the studio's), none that answers


async def ask(client, question: str) -> dict:
    result = await client.call_tool("ask", {"member": "ana", "question": question})
    assert not result.is_error
    return result.structured_content


def card(page: str, escalation: int) -> str:
    return page.split(f'id="escalation-{escalation}"')[1].split("</section>")[0]


async def test_this_note_answers_it_reaches_the_asker_and_the_notes_page_lists_it_to_remove(club):
    db = club.db()
    ana_id = principals.find_principal(db, "ana").id
    design = next(n for n in briefing.notes(db, ana_id) if n.topic == "design")
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = await ask(bruno, FILM)
        escalation = asked["escalation_id"]
        async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
            queue = card((await ana.get("/console/queue")).text, escalation)
            assert "This note answers it" in queue
            decided = await ana.post(
                f"/console/queue/{escalation}",
                {"action": "note", "note_id": str(design.id)},
                page="/console/queue",
            )
            assert decided.status_code == 303
            after = (await ana.get("/console/queue")).text
            assert "keeps the question as an example of that note" in after
            notes = (await ana.get("/console/notes")).text
            note = notes.split(f'id="note-{design.id}"')[1].split("</article>")[0]
            assert "Answers questions like" in note and "favourite film?" in note
            [example] = db.execute("SELECT id, decided_via, session_id FROM note_examples")
            assert example[1] == "console" and example[2] is not None
            async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as b:
                other = await b.post(
                    f"/console/examples/{example[0]}", {"action": "remove"}, page="/console/notes"
                )
                assert other.status_code == 404  # another member's example: as if none
            removed = await ana.post(
                f"/console/examples/{example[0]}", {"action": "remove"}, page="/console/notes"
            )
            assert removed.status_code == 303
            assert "favourite film?" not in (await ana.get("/console/notes")).text
        threads = (await bruno.call_tool("inbox", {})).structured_content["threads"]
    thread = next(t for t in threads if t["thread_id"] == asked["thread_id"])
    decision = thread["messages"][-1]
    assert decision["kind"] == "decision" and f"(note {design.id}, " in decision["body"]
    assert design.text in decision["body"]
    assert db.execute("SELECT COUNT(*) FROM note_examples").fetchone()[0] == 0


async def test_an_answer_saved_as_a_note_is_quoted_and_the_note_is_approved(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = await ask(bruno, FILM)
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        refused = await ana.post(
            f"/console/queue/{asked['escalation_id']}",
            {"action": "answer", "text": "Paris, Texas.", "save": "yes", "topic": ""},
            page="/console/queue",
        )
        assert refused.status_code == 400 and "Name the note&#39;s topic" in refused.text
        assert (
            'value="Paris, Texas."' in refused.text or ">Paris, Texas.</textarea>" in refused.text
        )
        saved = await ana.post(
            f"/console/queue/{asked['escalation_id']}",
            {"action": "answer", "text": "Paris, Texas.", "save": "yes", "topic": "films"},
            page="/console/queue",
        )
        assert saved.status_code == 303
        notes = (await ana.get("/console/notes")).text
    assert "Paris, Texas." in notes and "favourite film?" in notes
    db = club.db()
    ana_id = principals.find_principal(db, "ana").id
    [film] = [n for n in briefing.notes(db, ana_id) if n.topic == "films"]
    assert film.status == "approved"
    body = db.execute(
        "SELECT decision FROM escalations WHERE id = ?", [asked["escalation_id"]]
    ).fetchone()[0]
    assert f"\u201cParis, Texas.\u201d (note {film.id}, " in body


async def test_why_it_is_here_is_worded_from_todays_notes_and_candidates_are_the_attached_ones(
    club,
):
    db = club.db()
    ana_id = principals.find_principal(db, "ana").id
    rate = briefing.write_note(
        db,
        ana_id,
        "studio",
        "The studio rents its meeting room for 80 euros a day.",
        "members",
        agent=None,
    )
    async with connect(club.url, club.tokens.member.token) as bruno:
        priced = await ask(bruno, "Can I rent the studio's meeting room?")
        booked = await ask(bruno, "Book Ana on Tuesday at 3")
    assert priced["escalation_id"] is not None, priced["findings"]
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        page = (await ana.get("/console/queue")).text
        held = card(page, priced["escalation_id"])
        assert "names a price" in held and "80 euros" in held and "This note answers it" in held
        commitment = card(page, booked["escalation_id"])
        assert "None of your notes seems to answer it." in commitment
        assert "This note answers it" not in commitment and "asks for a commitment" in commitment
        # Ana lets her agent relay the note as written: the same question now reads otherwise
        briefing.review(db, ana_id, rate.id, "approve", revision=rate.revision, relay=True)
        held = card((await ana.get("/console/queue")).text, priced["escalation_id"])
        assert "names a price" not in held and "may now be relayed as written" in held


async def test_why_it_is_here_follows_the_mandate_as_it_stands_when_the_page_is_drawn(club):
    db = club.db()
    ana_id = principals.find_principal(db, "ana").id
    body = mandates.current(db, club.key(), ana_id).body
    db.execute("UPDATE mandates SET signature = 'forged' WHERE principal_id = ?", [ana_id])
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = await ask(bruno, "Is Ana available for new work, and when?")
    assert asked["escalation_id"] is not None  # a mandate that does not verify answers nothing
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        held = card((await ana.get("/console/queue")).text, asked["escalation_id"])
        assert "Your mandate is not valid now" in held
        assert "None of your notes seems to answer it." in held
        manifest = club.manifest()
        mandates.sign_mandate(
            db,
            club.key(),
            principal_id=ana_id,
            topics=[*body.topics, "films"],
            reveal=list(body.reveal),
            quotable=body.quotable,
            scopes=list(body.scopes),
            known_scopes=frozenset(manifest.scopes),
            agent_scopes=manifest.agent_scopes,
            valid_for=timedelta(days=30),
        )
        held = card((await ana.get("/console/queue")).text, asked["escalation_id"])
    assert "not valid" not in held and "does not cover" not in held
    assert "Your mandate covers: availability, design, films, studio." in held
