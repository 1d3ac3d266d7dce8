"""Rows of `note_examples`: the questions a member confirmed one of their notes answers.

Only a member's own decision in their queue writes one (`asking.queue`); they are read for that
member's answering agent, beside the notes it is handed, and for that member's Notes page. Nothing
else reads them: no tool, no other member's page.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.store.database import Database, records, text


@dataclass(frozen=True, slots=True)
class Example:
    """A question a member confirmed one of their notes answers, and how they decided it."""

    id: int
    note_id: int
    question: str
    decided_via: str
    created_at: str


def add(
    db: Database,
    *,
    principal_id: int,
    note_id: int,
    question: str,
    escalation_id: int,
    via: str,
    session_id: int | None,
    stamp: str,
) -> bool:
    """Keep `question` as an example of this principal's approved note; False when it has no such
    approved note (then nothing is written)."""
    return (
        db.execute(
            "INSERT INTO note_examples "
            "(principal_id, note_id, question, escalation_id, decided_via, session_id, created_at) "
            "SELECT b.principal_id, b.id, ?, ?, ?, ?, ? FROM briefing b "
            "WHERE b.id = ? AND b.principal_id = ? AND b.status = 'approved'",
            [question, escalation_id, via, session_id, stamp, note_id, principal_id],
        ).rowcount
        == 1
    )


def questions_by_note(db: Database, principal_id: int, per_note: int) -> dict[str, list[str]]:
    """This principal's examples by note id (as text, the id the answerer knows), newest first, at most
    `per_note` a note. One indexed read, capped here: a window function took four times as long."""
    found: dict[str, list[str]] = {}
    for note_id, question in db.execute(
        "SELECT note_id, question FROM note_examples WHERE principal_id = ? ORDER BY note_id, id DESC",
        [principal_id],
    ).fetchall():
        kept = found.setdefault(str(note_id), [])
        if len(kept) < per_note:
            kept.append(text(question))
    return found


def of_principal(db: Database, principal_id: int) -> list[Example]:
    """Every example of this principal's, newest first, with how it was decided."""
    return records(
        db,
        Example,
        "SELECT id, note_id, question, decided_via, created_at FROM note_examples "
        "WHERE principal_id = ? ORDER BY id DESC",
        [principal_id],
    )


def remove(db: Database, principal_id: int, example_id: int) -> bool:
    """Remove one of this principal's examples; False when they have no such example."""
    return (
        db.execute(
            "DELETE FROM note_examples WHERE id = ? AND principal_id = ?",
            [example_id, principal_id],
        ).rowcount
        == 1
    )
