"""The member teaches by answering (server/asking/queue.py): pointing at a note answers the asker with
it, composed as any grounded answer, and keeps the question as an example of that note; examples ride
only with notes the asker may see, go with their note, and only the member's own decision makes one.
Real store (SQLite, or PostgreSQL with PARLEY_TEST_DATABASE_URL), the demo club."""

from __future__ import annotations

import pytest

from server.answering import Note, ScopedRequest, Selection, Terms
from server.answering.contract import MAX_EXAMPLES
from server.asking import AlreadyDecided, AskError, Escalations, briefing
from server.asking.escalations import revealable
from server.asking.queue import COMMAND_LINE, Decider, Decision, Queue
from server.identity import mandates, principals
from server.store import asking as rows
from server.store import sessions
from server.store.database import now, revision, write

FILM = "What is Ana's favourite film?"


@pytest.fixture
def world(demo_world):
    db, key, manifest = demo_world
    service = Escalations(db, key, manifest)
    people = {h: principals.find_principal(db, h).id for h in ("ana", "bruno", "carla")}
    notes = {row.topic: int(row.id) for row in briefing.notes(db, people["ana"])}
    return db, key, service, Queue(service), people, notes


async def escalate(service: Escalations, asker: int, question: str, member: bool = True) -> int:
    asked = await service.ask(asker, "helper", member, "ana", question, "en")
    assert asked.escalation_id is not None, asked.answer.findings
    return asked.escalation_id


def decisions(db, escalation_id: int) -> list[dict]:
    thread = db.execute(
        "SELECT thread_id FROM escalations WHERE id = ?", [escalation_id]
    ).fetchone()[0]
    return [m for m in rows.messages(db, thread) if m.kind == "decision"]


def examples(db) -> list[tuple]:
    return [
        tuple(r)
        for r in db.execute(
            "SELECT principal_id, note_id, question, escalation_id, decided_via, session_id "
            "FROM note_examples ORDER BY id"
        ).fetchall()
    ]


def handed(db, key, member: int, asker_is_member: bool) -> dict[str, Note]:
    body = mandates.current(db, key, member).body
    assert body is not None
    return {i: a.note for i, a in revealable(db, member, body, asker_is_member).items()}


async def test_pointing_at_a_note_answers_the_asker_and_keeps_the_question_as_its_example(world):
    db, key, service, queue, people, notes = world
    escalation = await escalate(service, people["bruno"], FILM)
    before = revision(db)
    decided = queue.decide(
        people["ana"], escalation, Decision("note", note_id=notes["design"]), COMMAND_LINE
    )
    assert (decided.status, decided.decided_via, decided.answered_with) == (
        "answered",
        "cli",
        notes["design"],
    )
    [message] = decisions(db, escalation)
    # composed as any grounded answer: the note's own words, with its id, in Parley's framing
    assert message.body.startswith("ana's agent (may be quoted, with attribution), from ana's")
    assert f"a single decision maker.\u201d (note {notes['design']}, " in message.body
    assert message.decided_by == "ana" and message.status == "decided"
    assert examples(db) == [(people["ana"], notes["design"], FILM, escalation, "cli", None)]
    assert revision(db) != before  # what the answering agent is handed changed
    assert handed(db, key, people["ana"], True)[str(notes["design"])].examples == (FILM,)
    assert all(
        not note.examples
        for note_id, note in handed(db, key, people["ana"], True).items()
        if note_id != str(notes["design"])
    )


async def test_a_decision_is_final_a_second_one_changes_nothing(world):
    db, key, service, queue, people, notes = world
    escalation = await escalate(service, people["bruno"], FILM)
    queue.decide(people["ana"], escalation, Decision("note", note_id=notes["design"]), COMMAND_LINE)
    for second in (
        Decision("note", note_id=notes["studio"]),
        Decision("answer", "Paris, Texas."),
        Decision("answer", "Paris, Texas.", save_topic="films"),
        Decision("decline"),
    ):
        with pytest.raises(AlreadyDecided, match="already answered"):
            queue.decide(people["ana"], escalation, second, COMMAND_LINE)
    assert len(decisions(db, escalation)) == 1 and len(examples(db)) == 1
    assert "films" not in {row.topic for row in briefing.notes(db, people["ana"])}


async def test_a_written_answer_saved_as_a_note_is_approved_and_keeps_the_question(world):
    db, key, service, queue, people, notes = world
    escalation = await escalate(service, people["bruno"], FILM)
    queue.decide(
        people["ana"],
        escalation,
        Decision("answer", "Paris, Texas, above all.", save_topic="Films"),
        COMMAND_LINE,
    )
    saved = next(r for r in briefing.notes(db, people["ana"]) if r.topic == "films")
    assert (saved.status, saved.visibility, saved.written_by) == (
        "approved",
        "members",  # the smallest audience that holds this asker
        "principal",
    )
    [message] = decisions(db, escalation)
    assert f"\u201cParis, Texas, above all.\u201d (note {saved.id}, " in message.body
    assert examples(db) == [(people["ana"], saved.id, FILM, escalation, "cli", None)]


async def test_words_not_saved_are_delivered_as_written_and_teach_nothing(world):
    db, key, service, queue, people, notes = world
    escalation = await escalate(service, people["bruno"], FILM)
    queue.decide(people["ana"], escalation, Decision("answer", "Paris, Texas."), COMMAND_LINE)
    assert [m.body for m in decisions(db, escalation)] == ["Paris, Texas."]
    assert examples(db) == []


async def test_a_note_the_asker_may_not_hear_is_refused_and_nothing_changes(world):
    db, key, service, queue, people, notes = world
    for_carla = await escalate(service, people["carla"], FILM, member=False)
    for_bruno = await escalate(service, people["bruno"], FILM)
    refusals = [
        (for_bruno, notes["fees"], "you keep it for yourself"),
        (for_carla, notes["availability"], "it is for members"),
        (for_bruno, 999_999, "not one of your approved notes"),
        (for_bruno, notes["design"] + 100, "not one of your approved notes"),
    ]
    bruno_note = briefing.notes(db, people["bruno"])[0].id
    refusals.append((for_bruno, bruno_note, "not one of your approved notes"))
    for escalation, note_id, why in refusals:
        with pytest.raises(AskError, match=why):
            queue.decide(people["ana"], escalation, Decision("note", note_id=note_id), COMMAND_LINE)
    assert examples(db) == [] and decisions(db, for_bruno) == [] == decisions(db, for_carla)


async def test_a_console_decision_needs_a_live_console_session_of_the_members_own(world):
    db, key, service, queue, people, notes = world
    escalation = await escalate(service, people["bruno"], FILM)
    later = "9999-01-01T00:00:00.000000Z"
    with write(db):
        anas = sessions.start(db, "digest-ana", people["ana"], later)
        brunos = sessions.start(db, "digest-bruno", people["bruno"], later)
        ended = sessions.start(db, "digest-ended", people["ana"], later)
        sessions.end(db, "digest-ended", "signed out")
    note = Decision("note", note_id=notes["design"])
    for who in (
        Decider("console"),  # no session at all: what an agent's call would be
        Decider("console", brunos),  # another member's session
        Decider("console", ended),
        Decider("console", 123_456),
        Decider("cli", anas),  # a command line names no session
    ):
        with pytest.raises(AskError, match="only the member decides"):
            queue.decide(people["ana"], escalation, note, who)
    assert examples(db) == [] and decisions(db, escalation) == []
    queue.decide(people["ana"], escalation, note, Decider("console", anas))
    assert examples(db) == [(people["ana"], notes["design"], FILM, escalation, "console", anas)]


async def test_removing_a_note_or_replacing_its_text_removes_its_examples(world):
    db, key, service, queue, people, notes = world
    # three questions with no word in common: a question taught to one note is answered from it
    # when asked again (the matcher learns from examples, #46), so each is asked once
    unrelated = (FILM, "Where did Ana grow up?", "Does Ana keep a cat?")
    for question, topic in zip(unrelated, ("design", "studio", "availability"), strict=True):
        escalation = await escalate(service, people["bruno"], question)
        queue.decide(
            people["ana"], escalation, Decision("note", note_id=notes[topic]), COMMAND_LINE
        )
    assert len(examples(db)) == 3
    briefing.delete(db, people["ana"], notes["design"])
    assert {e[1] for e in examples(db)} == {notes["studio"], notes["availability"]}
    briefing.write_note(  # the same words again: still the note the member pointed at
        db,
        people["ana"],
        "studio",
        "The studio is three people; Ana handles client relations herself.",
        "members",
        agent=None,
        note_id=notes["studio"],
    )
    assert {e[1] for e in examples(db)} == {notes["studio"], notes["availability"]}
    briefing.write_note(
        db,
        people["ana"],
        "studio",
        "The studio is four people now.",
        "members",
        agent=None,
        note_id=notes["studio"],
    )
    assert {e[1] for e in examples(db)} == {notes["availability"]}
    assert handed(db, key, people["ana"], True)[str(notes["studio"])].examples == ()


async def test_a_note_bruno_may_not_see_never_brings_its_examples_to_the_answerer(world):
    db, key, service, queue, people, notes = world
    secret = "Would Ana ever take a job from Quetzal Motors?"
    escalation = await escalate(service, people["carla"], secret, member=False)
    queue.decide(people["ana"], escalation, Decision("note", note_id=notes["design"]), COMMAND_LINE)
    # another question (the secret, taught to a public note, would now be answered from it)
    escalation = await escalate(service, people["bruno"], "Does Ana keep a cat?")
    queue.decide(
        people["ana"], escalation, Decision("note", note_id=notes["availability"]), COMMAND_LINE
    )
    handed_to: list[list[Note]] = []

    def answerer(request: ScopedRequest, terms: Terms, notes_: list[Note]) -> Selection:
        handed_to.append(notes_)
        return Selection(escalate="outside_mandate")

    watching = Escalations(db, key, service.manifest, answerer)
    await watching.ask(people["carla"], None, False, "ana", "Is Ana free in March?", "en")
    # an applicant: the members' note is not handed, so neither are the questions kept with it
    [seen] = handed_to
    assert {n.id: n.examples for n in seen} == {str(notes["design"]): (secret,)}
    # narrowing the mandate to drop "design": that note, and its examples, go from every ask
    mandates.amend(
        db,
        key,
        principal_id=people["ana"],
        topics=["availability", "studio"],
        known_scopes=frozenset(service.manifest.scopes),
        agent_scopes=service.manifest.agent_scopes,
    )
    await watching.ask(people["bruno"], None, True, "ana", "Is Ana free in March?", "en")
    assert all(secret not in n.examples for n in handed_to[-1])
    assert {n.id for n in handed_to[-1]} == {str(notes["availability"]), str(notes["studio"])}


async def test_examples_are_handed_newest_first_and_at_most_max_examples(world):
    db, key, service, queue, people, notes = world
    stamp = now()
    with write(db):
        thread = rows.open_thread(db, people["bruno"], people["ana"], "many", stamp)
        for number in range(MAX_EXAMPLES + 6):
            escalation = rows.file_escalation(
                db,
                principal_id=people["ana"],
                asker_id=people["bruno"],
                asker_agent=None,
                thread_id=thread,
                question=f"question {number}",
                language="en",
                reason="outside_mandate",
                stamp=stamp,
            )
            queue.decide(
                people["ana"], escalation, Decision("note", note_id=notes["design"]), COMMAND_LINE
            )
    kept = handed(db, key, people["ana"], True)[str(notes["design"])].examples
    assert kept == tuple(f"question {n}" for n in range(MAX_EXAMPLES + 5, 5, -1))
