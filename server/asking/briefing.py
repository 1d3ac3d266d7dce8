"""A principal's briefing notes, and their approval: what an answering agent may ever quote.

A note an agent writes (`update_briefing`) is pending until its principal approves it in the
console or with `parley notes approve`; pending and rejected notes are never handed to an answerer.
A note the principal writes in the console is approved as written. Approving, the principal sees
what to look at twice (`concerns`) and may tick "my agent may relay this as written", without which
a note that states a price, an offer, a commitment, a link or words to an agent is never quoted:
a question it would answer goes to the principal instead (`grounding.compose`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.answering.checks import Flag, flags
from server.answering.text import invisible, lookalikes
from server.asking.rows import Row
from server.errors import NotFound, ParleyError
from server.plaintext import folded
from server.store import records
from server.store.database import Database, now, write

Visibility = Literal["public", "members", "private"]
Review = Literal["approve", "reject"]
TOPIC_LIMIT = 80
TEXT_LIMIT = 4000

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
) -> Row:
    """Add a note, or replace one by id. Written by an agent (`agent` names it): pending, never
    relayed until approved. Written by the principal: approved as written, `relay` as ticked."""
    topic, text = _clean(topic, text)
    status = "pending" if agent is not None else "approved"
    written_by = f"agent:{agent}" if agent is not None else "principal"
    relay = relay and agent is None
    stamp = now()
    with write(db):
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
            raise NoSuchNote(f"you have no briefing note {note_id}")
        found = records.note_of(db, principal_id, note_id)
    assert found is not None
    return found


def review(
    db: Database, principal_id: int, note_id: int, action: Review, relay: bool = False
) -> Row:
    """Approve (ticking "relay as written" or not) or reject one of this principal's notes."""
    if action not in ("approve", "reject"):
        raise ParleyError("a note is approved or rejected")
    with write(db):
        if not records.review_note(
            db,
            note_id,
            principal_id,
            "approved" if action == "approve" else "rejected",
            relay,
            now(),
        ):
            raise NoSuchNote(f"you have no briefing note {note_id}")
        found = records.note_of(db, principal_id, note_id)
    assert found is not None
    return found


def delete(db: Database, principal_id: int, note_id: int) -> None:
    with write(db):
        if not records.delete_note(db, note_id, principal_id):
            raise NoSuchNote(f"you have no briefing note {note_id}")


def notes(db: Database, principal_id: int, status: str | None = None) -> list[Row]:
    return records.notes_of(db, principal_id, status)


def pending_count(db: Database, principal_id: int) -> int:
    return records.pending_count(db, principal_id)
