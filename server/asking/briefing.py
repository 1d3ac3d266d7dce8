"""A principal's briefing notes, and their approval: what an answering agent may ever quote.

A note an agent writes (`update_briefing`) is pending until its principal approves it in the
console or with `parley notes approve`; pending and rejected notes are never handed to an answerer.
A note the principal writes in the console is approved as written. Approving, the principal sees
what to look at twice (`concerns`) and may tick "my agent may relay this as written", without which
a note that states a price, an offer, a commitment, a link or words to an agent, or that hides
characters or look-alike letters, is never quoted: a question it would answer goes to the principal
instead (`grounding.compose`, whose test `held` repeats).

Every change to a note's text, topic or visibility makes a new revision, and an approval names the
revision its principal read: it applies only while that revision is current (`Changed` otherwise,
and nothing is approved). An agent may leave at most `PENDING_LIMIT` notes waiting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.answering.checks import Flag, flags
from server.answering.contract import Note
from server.answering.grounding import consent_needed
from server.answering.text import invisible, lookalikes
from server.asking.coverage import coverage
from server.errors import Conflict, NotFound, ParleyError
from server.identity.mandates import MandateStatus
from server.plaintext import folded
from server.store import records
from server.store.database import Database, now, write
from server.store.records import BriefingNote

Visibility = Literal["public", "members", "private"]
Review = Literal["approve", "reject"]
TOPIC_LIMIT = 80
TEXT_LIMIT = 4000
PENDING_LIMIT = 200  # notes an agent may leave waiting for its principal, all agents together

CONCERNS: dict[Flag, str] = {
    "instructions": "It reads as instructions to an agent (to ignore its rules, call a tool, send something).",
    "link": "It carries a link or contact details (a web address, an e-mail, a phone number, a handle).",
    "price": "It states a price, a fee or an amount of money.",
    "commitment": "It offers or agrees to something you could be held to (a date, a booking, a deal).",
    "invisible": "It contains characters nobody can see",
    "lookalike": "It contains letters of another alphabet that pass for Latin ones",
}


class NoSuchNote(NotFound):
    """No such note among this principal's (whether it exists elsewhere is not said)."""


def _missing(note_id: int, owner: str | None) -> NoSuchNote:
    """`owner`: the principal's handle when someone else (an administrator) acts for them."""
    return NoSuchNote(
        f"{owner} has no briefing note {note_id}"
        if owner
        else f"you have no briefing note {note_id}"
    )


class Changed(Conflict):
    """The note was changed after its principal read it: nothing was approved or rejected. `note` is
    the note as it now reads, to be reviewed afresh."""

    def __init__(self, read: int, note: BriefingNote):
        self.note = note
        super().__init__(
            f"note {note.id} changed after you read it (you read revision {read}; it is now revision "
            f"{note.revision}), so nothing was approved or rejected: read its new text and review it again"
        )


def reach(row: BriefingNote, who: str, status: MandateStatus, person: str = "you") -> str:
    """What happens to a question this note would answer once it is approved, said to `person` (the
    member, "you"; or "your principal", to their agent), from the two tests the answering path
    applies to an approved note: the signed mandate's (`coverage`) and the relay consent's (`held`)."""
    covered = coverage(status, row.topic, row.visibility)
    if covered.gap is not None:
        return covered.sentence(person)
    flagged = held(row.topic, row.text, who)
    if flagged and not row.relay:
        return (
            f"Questions it would answer will still come to {person} in person: it is flagged "
            f"({', '.join(sorted(flagged))}), and a flagged note is quoted only once it may be "
            "relayed as written."
        )
    if person == "you":
        return (
            "Your agent may quote it now, word for word, to the askers your mandate reveals it to."
        )
    return (
        "The answering agent may quote it, word for word, to the askers the mandate reveals it to."
    )


def held(topic: str, text: str, who: str) -> frozenset[Flag]:
    """What in this note keeps it from being quoted until its principal lets it be relayed as
    written: the answering path's own test (`grounding.consent_needed`)."""
    return consent_needed(Note(id="0", topic=topic, text=text), who)


@dataclass(frozen=True)
class Concern:
    flag: Flag
    text: str


def concerns(topic: str, text: str, who: str) -> list[Concern]:
    """What a person should look at twice in this note before approving it, in plain words."""
    found = flags(topic, who) | flags(text, who)
    out = []
    for flag in ("instructions", "link", "price", "commitment", "invisible", "lookalike"):
        if flag not in found:
            continue
        detail = CONCERNS[flag]
        if flag == "invisible":
            detail += f": {', '.join(invisible(topic + text))}."
        elif flag == "lookalike":
            detail += f": {', '.join(lookalikes(topic + text)[:6])}."
        out.append(Concern(flag, detail))
    return out


def _clean(topic: str, text: str) -> tuple[str, str]:
    topic, text = folded(topic), text.strip()  # as the tool's argument type folds it
    if not 1 <= len(topic) <= TOPIC_LIMIT:
        raise ParleyError(f"a note's topic is 1 to {TOPIC_LIMIT} characters")
    if not 1 <= len(text) <= TEXT_LIMIT:
        raise ParleyError(f"a note's text is 1 to {TEXT_LIMIT} characters")
    return topic, text


def write_note(
    db: Database,
    principal_id: int,
    topic: str,
    text: str,
    visibility: Visibility,
    *,
    agent: str | None,
    note_id: int | None = None,
    relay: bool = False,
) -> BriefingNote:
    """Add a note, or replace one by id. Written by an agent (`agent` names it): pending, never
    relayed until approved. Written by the principal: approved as written, `relay` as ticked."""
    topic, text = _clean(topic, text)
    status = "pending" if agent is not None else "approved"
    written_by = f"agent:{agent}" if agent is not None else "principal"
    relay = relay and agent is None
    stamp = now()
    with write(db):
        if status == "pending":
            _room_for_pending(db, principal_id, note_id)
        if note_id is None:
            note_id = records.add_note(
                db,
                principal_id,
                topic,
                text,
                visibility,
                stamp,
                status=status,
                written_by=written_by,
                relay=relay,
            )
        elif not records.replace_note(
            db,
            note_id,
            principal_id,
            topic,
            text,
            visibility,
            stamp,
            status=status,
            written_by=written_by,
            relay=relay,
        ):
            raise _missing(note_id, None)
        found = records.note_of(db, principal_id, note_id)
    assert found is not None
    return found


def _room_for_pending(db: Database, principal_id: int, note_id: int | None) -> None:
    """Refuse a note that would be one waiting note past `PENDING_LIMIT` (replacing a note that
    already waits adds none)."""
    if note_id is not None:
        earlier = records.note_of(db, principal_id, note_id)
        if earlier is not None and earlier.status == "pending":
            return
    if records.pending_count(db, principal_id) >= PENDING_LIMIT:
        raise ParleyError(
            f"{PENDING_LIMIT} notes already wait for your principal's approval, the most that may "
            "wait; nothing was stored: ask your principal to review them (the console's Notes page) "
            "or replace a waiting one by its note_id"
        )


def review(
    db: Database,
    principal_id: int,
    note_id: int,
    action: Review,
    *,
    revision: int,
    relay: bool = False,
    owner: str | None = None,
) -> BriefingNote:
    """Approve (ticking "relay as written" or not) or reject one of this principal's notes as it read
    at `revision`, the revision its principal read; `Changed` when it has changed since, and nothing
    is reviewed. `owner`: the principal's handle when an administrator acts for them."""
    if action not in ("approve", "reject"):
        raise ParleyError("a note is approved or rejected")
    with write(db):
        found = records.note_of(db, principal_id, note_id)
        if found is None:
            raise _missing(note_id, owner)
        if not records.review_note(
            db,
            note_id,
            principal_id,
            revision,
            "approved" if action == "approve" else "rejected",
            relay,
            now(),
        ):
            raise Changed(revision, found)
        found = records.note_of(db, principal_id, note_id)
    assert found is not None
    return found


def note(db: Database, principal_id: int, note_id: int, owner: str | None = None) -> BriefingNote:
    """One of this principal's notes as it now reads."""
    found = records.note_of(db, principal_id, note_id)
    if found is None:
        raise _missing(note_id, owner)
    return found


def delete(db: Database, principal_id: int, note_id: int) -> None:
    with write(db):
        if not records.delete_note(db, note_id, principal_id):
            raise _missing(note_id, None)


def notes(db: Database, principal_id: int, status: str | None = None) -> list[BriefingNote]:
    return records.notes_of(db, principal_id, status)


def pending_count(db: Database, principal_id: int) -> int:
    return records.pending_count(db, principal_id)
