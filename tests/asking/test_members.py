"""An ask reads the member it names, that member's mandate and the notes it hands the answering
agent once per store revision (server/asking/members.py), and still hears every change from the next
revision on: an approved note changed, approved or deleted moves the revision, a pending one does
not; an expiry, which moves no revision, is checked on every ask. Real store (SQLite, or PostgreSQL
with PARLEY_TEST_DATABASE_URL), the demo club."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from server.asking import AskError, Escalations, briefing
from server.identity import mandates, principals
from server.store.database import revision

QUESTION = "Is Ana available for new work, and when?"


@pytest.fixture
def world(demo_world):
    db, key, manifest = demo_world
    return db, key, manifest, Escalations(db, key, manifest)


async def ask(service: Escalations, db, asker: int) -> str | None:
    """Bruno asks Ana, at the revision the store is at now (as the ask tool passes its caller's)."""
    asked = await service.ask(asker, None, True, "ana", QUESTION, "en", revision=revision(db))
    return None if asked.escalation_id is not None else asked.answer.findings


async def test_one_revision_reads_a_member_once_and_the_next_reads_afresh(world):
    db, key, manifest, service = world
    now = revision(db)
    first = service.members.named("ana", now)
    assert first is not None and first is service.members.named("ana", now)  # kept, not read again
    assert service.members.named("nobody-here", now) is None
    assert set(service.members._kept[1]) == {"ana"}  # a handle naming nobody is not kept
    principals.set_status(db, "ana", "suspended")
    assert revision(db) != now
    again = service.members.named("ana", revision(db))
    assert again is not None and again.principal.status == "suspended"


async def test_a_narrowed_mandate_and_a_suspension_reach_the_next_ask(world):
    db, key, manifest, service = world
    bruno = principals.find_principal(db, "bruno").id
    ana = principals.find_principal(db, "ana").id
    assert "taking on new work from February" in (await ask(service, db, bruno) or "")
    mandates.amend(
        db,
        key,
        principal_id=ana,
        topics=["design", "studio"],
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
    )
    assert await ask(service, db, bruno) is None  # escalated: availability is no longer mandated
    principals.set_status(db, "ana", "suspended")
    with pytest.raises(AskError, match="no member with handle 'ana'"):
        await ask(service, db, bruno)


async def test_a_kept_mandate_that_expires_counts_as_none_while_the_revision_stands(world):
    db, key, manifest, service = world
    bruno = principals.find_principal(db, "bruno").id
    ana = principals.find_principal(db, "ana").id
    mandates.amend(
        db,
        key,
        principal_id=ana,
        valid_for=timedelta(seconds=2),
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
    )
    standing = revision(db)
    assert "taking on new work from February" in (await ask(service, db, bruno) or "")
    time.sleep(2.1)
    assert revision(db) == standing  # nothing written: the kept rows stand, the expiry is read anew
    assert await ask(service, db, bruno) is None


async def test_a_changed_note_reaches_the_next_ask_and_one_revision_reads_the_notes_once(world):
    db, key, manifest, service = world
    bruno = principals.find_principal(db, "bruno").id
    ana = principals.find_principal(db, "ana").id
    assert "taking on new work from February" in (await ask(service, db, bruno) or "")
    named = service.members.named("ana", revision(db))
    assert named is not None and named._handed  # what the mandate hands over is kept ...
    kept = next(iter(named._handed.values()))[1]
    await ask(service, db, bruno)
    assert next(iter(named._handed.values()))[1] is kept  # ... and not read again at this revision

    (note,) = [n for n in briefing.notes(db, ana) if n.topic == "availability"]
    standing = revision(db)
    drafted = briefing.write_note(
        db,
        ana,
        "availability",
        "Ana is booked until June, and taking on new work after that.",
        "members",
        agent="helper",
    )
    assert revision(db) == standing  # a pending note is handed to nobody: nothing moves
    assert "taking on new work from February" in (await ask(service, db, bruno) or "")

    briefing.write_note(
        db,
        ana,
        "availability",
        "Ana is taking on new work from March.",
        "members",
        agent=None,
        note_id=note.id,
    )  # the member edits an approved note
    assert revision(db) != standing
    findings = await ask(service, db, bruno) or ""
    assert "from March" in findings and "February" not in findings

    briefing.delete(db, ana, note.id)
    briefing.review(db, ana, drafted.id, "approve", revision=drafted.revision)  # handed now
    assert "booked until June, and taking on new work after that" in (
        await ask(service, db, bruno) or ""
    )
    briefing.delete(db, ana, drafted.id)
    assert await ask(service, db, bruno) is None  # no note on availability is left: it escalates
