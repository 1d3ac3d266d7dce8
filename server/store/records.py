"""Rows a principal keeps: briefing notes, admission evidence, applications, and refund requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.store.database import Database, first_record, number, records, text


@dataclass(frozen=True, slots=True)
class BriefingNote:
    """A briefing note as its row holds it. status: pending (an agent wrote it) or approved; relay
    (0 or 1): its principal lets their agent relay it as written; revision: bumped on each edit."""

    id: int
    topic: str
    text: str
    visibility: str  # public | members | private
    updated_at: str
    status: Literal["pending", "approved", "rejected"]
    relay: int
    written_by: str | None
    reviewed_at: str | None
    revision: int


@dataclass(frozen=True, slots=True)
class Evidence:
    """An item an applicant gave as evidence for admission."""

    id: int
    kind: str
    title: str
    detail: str
    url: str | None
    created_at: str


NOTE_COLUMNS = (
    "id, topic, text, visibility, updated_at, status, relay, written_by, reviewed_at, revision"
)


def notes_of(db: Database, principal_id: int, status: str | None = None) -> list[BriefingNote]:
    """This principal's briefing notes by topic (only those in `status` when given)."""
    where, params = ("AND status = ?", [principal_id, status]) if status else ("", [principal_id])
    return records(
        db,
        BriefingNote,
        f"SELECT {NOTE_COLUMNS} FROM briefing WHERE principal_id = ? {where} ORDER BY topic, id",
        params,
    )


def note_of(db: Database, principal_id: int, note_id: int) -> BriefingNote | None:
    return first_record(
        db,
        BriefingNote,
        f"SELECT {NOTE_COLUMNS} FROM briefing WHERE id = ? AND principal_id = ?",
        [note_id, principal_id],
    )


def pending_count(db: Database, principal_id: int) -> int:
    return number(
        db.execute(
            "SELECT COUNT(*) FROM briefing WHERE principal_id = ? AND status = 'pending'",
            [principal_id],
        )
    )


def add_note(
    db: Database,
    principal_id: int,
    topic: str,
    text: str,
    visibility: str,
    stamp: str,
    *,
    status: str,
    written_by: str,
    relay: bool = False,
) -> int:
    """status: pending (an agent wrote it) or approved (its principal did)."""
    return db.insert(
        "briefing",
        {
            "principal_id": principal_id,
            "topic": topic,
            "text": text,
            "visibility": visibility,
            "created_at": stamp,
            "updated_at": stamp,
            "status": status,
            "relay": int(relay),
            "written_by": written_by,
            "reviewed_at": stamp if status == "approved" else None,
        },
    )


def replace_note(
    db: Database,
    note_id: int,
    principal_id: int,
    topic: str,
    text: str,
    visibility: str,
    stamp: str,
    *,
    status: str,
    written_by: str,
    relay: bool = False,
) -> bool:
    """Replace one of this principal's notes as its next revision, which then needs approval again
    unless its principal wrote it; False when it has no such note."""
    return (
        db.execute(
            "UPDATE briefing SET topic = ?, text = ?, visibility = ?, updated_at = ?, status = ?, relay = ?, "
            "written_by = ?, reviewed_at = ?, revision = revision + 1 WHERE id = ? AND principal_id = ?",
            [
                topic,
                text,
                visibility,
                stamp,
                status,
                int(relay),
                written_by,
                stamp if status == "approved" else None,
                note_id,
                principal_id,
            ],
        ).rowcount
        == 1
    )


def review_note(
    db: Database,
    note_id: int,
    principal_id: int,
    revision: int,
    status: str,
    relay: bool,
    stamp: str,
) -> bool:
    """Approve (with or without "relay as written") or reject one of this principal's notes as it
    reads at `revision`: False, and nothing changed, when that is not the note's current revision."""
    return (
        db.execute(
            "UPDATE briefing SET status = ?, relay = ?, reviewed_at = ? "
            "WHERE id = ? AND principal_id = ? AND revision = ?",
            [status, int(relay and status == "approved"), stamp, note_id, principal_id, revision],
        ).rowcount
        == 1
    )


def delete_note(db: Database, note_id: int, principal_id: int) -> bool:
    return (
        db.execute(
            "DELETE FROM briefing WHERE id = ? AND principal_id = ?", [note_id, principal_id]
        ).rowcount
        == 1
    )


def note_owner(db: Database, note_id: int) -> str | None:
    row = db.execute(
        "SELECT p.handle FROM briefing b JOIN principals p ON p.id = b.principal_id WHERE b.id = ?",
        [note_id],
    ).fetchone()
    return text(row[0]) if row else None


def add_evidence(
    db: Database, principal_id: int, kind: str, title: str, detail: str, url: str | None, stamp: str
) -> int:
    return db.insert(
        "evidence",
        {
            "principal_id": principal_id,
            "kind": kind,
            "title": title,
            "detail": detail,
            "url": url,
            "created_at": stamp,
        },
    )


def evidence_of(db: Database, principal_id: int) -> list[Evidence]:
    return records(
        db,
        Evidence,
        "SELECT id, kind, title, detail, url, created_at FROM evidence WHERE principal_id = ? "
        "ORDER BY id",
        [principal_id],
    )


def evidence_count(db: Database, principal_id: int) -> int:
    return number(
        db.execute("SELECT COUNT(*) FROM evidence WHERE principal_id = ?", [principal_id])
    )


def add_application(db: Database, principal_id: int, statement: str, stamp: str) -> int:
    return db.insert(
        "applications", {"principal_id": principal_id, "statement": statement, "created_at": stamp}
    )


def statements_of(db: Database, principal_id: int) -> list[str]:
    return [
        text(row[0])
        for row in db.execute(
            "SELECT statement FROM applications WHERE principal_id = ? ORDER BY id", [principal_id]
        ).fetchall()
    ]


def add_refund(
    db: Database,
    *,
    principal_id: int,
    agent: str | None,
    order_id: str,
    amount: float,
    expedite: bool,
    reason: str,
    stamp: str,
) -> int:
    return db.insert(
        "refunds",
        {
            "principal_id": principal_id,
            "agent": agent,
            "order_id": order_id,
            "amount": amount,
            "expedite": int(expedite),
            "reason": reason,
            "created_at": stamp,
        },
    )
