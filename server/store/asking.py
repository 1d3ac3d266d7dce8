"""Rows of `threads`, `messages` and `escalations`: questions, what came back, and the decision queue."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from server.store.database import Database, first_record, integer, number, records


@dataclass(frozen=True, slots=True)
class Message:
    """A message of a thread. kind: question | answer | decline | decision; status: answered |
    escalated | declined | decided; quotes: the notes it quotes, as JSON."""

    kind: Literal["question", "answer", "decline", "decision"]
    body: str
    created_at: str
    status: str | None
    decided_by: str | None
    quotes: str | None


@dataclass(frozen=True, slots=True)
class AskRequest:
    """What an idempotency key was first asked with (a fingerprint) and what it answered (JSON)."""

    fingerprint: str
    result: str


@dataclass(frozen=True, slots=True)
class ListedThread:
    """A thread in a principal's inbox, with who asked and the other party's handle."""

    id: int
    subject: str
    updated_at: str
    asker_id: int
    asker: str
    other: str


@dataclass(frozen=True, slots=True)
class Escalation:
    """A question in a principal's decision queue, with its asker's handle and standing. notes: ids
    of the notes to show beside it (JSON); decided_via: console | cli; answered_with: a note id."""

    id: int
    principal_id: int
    asker_id: int
    asker_agent: str | None
    thread_id: int
    question: str
    language: Literal["en", "pt-BR"]
    reason: str  # outside_mandate | commitment
    status: str  # open | answered | declined | widened
    decision: str | None
    created_at: str
    decided_at: str | None
    notes: str | None
    decided_via: str | None
    decided_session: int | None
    answered_with: int | None
    asker: str
    asker_status: str


def thread_parties(db: Database, thread_id: int) -> tuple[int, int] | None:
    row = db.execute(
        "SELECT asker_id, answerer_id FROM threads WHERE id = ?", [thread_id]
    ).fetchone()
    return (integer(row[0]), integer(row[1])) if row else None


def open_thread(db: Database, asker_id: int, answerer_id: int, subject: str, stamp: str) -> int:
    return db.insert(
        "threads",
        {
            "asker_id": asker_id,
            "answerer_id": answerer_id,
            "subject": subject,
            "created_at": stamp,
            "updated_at": stamp,
        },
    )


def add_message(
    db: Database,
    thread_id: int,
    kind: str,
    body: str,
    stamp: str,
    status: str,
    decided_by: str | None = None,
    quotes: str | None = None,
) -> None:
    """status: asked | answered | escalated | declined | decided (then `decided_by` names the member).
    `quotes`: the notes the body quotes, as a JSON list, when it quotes any."""
    db.insert(
        "messages",
        {
            "thread_id": thread_id,
            "kind": kind,
            "body": body,
            "created_at": stamp,
            "status": status,
            "decided_by": decided_by,
            "quotes": quotes,
        },
    )
    touch_thread(db, thread_id, stamp)


def add_exchange(
    db: Database, thread_id: int, messages: list[tuple[str, str, str, str | None]], stamp: str
) -> None:
    """An ask's messages, (kind, body, status, quotes as JSON or None) each, in one statement: the
    question and what came back. The unit already set the thread's `updated_at` to `stamp`
    (`open_thread`, `touch_thread`)."""
    db.execute(
        "INSERT INTO messages (thread_id, kind, body, created_at, status, quotes) VALUES "
        + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(messages)),
        [
            value
            for kind, body, status, quotes in messages
            for value in (thread_id, kind, body, stamp, status, quotes)
        ],
    )


def touch_thread(db: Database, thread_id: int, stamp: str) -> None:
    db.execute("UPDATE threads SET updated_at = ? WHERE id = ?", [stamp, thread_id])


def messages(db: Database, thread_id: int) -> list[Message]:
    return records(
        db,
        Message,
        "SELECT kind, body, created_at, status, decided_by, quotes FROM messages WHERE thread_id = ? "
        "ORDER BY id",
        [thread_id],
    )


def ask_request(db: Database, principal_id: int, key: str) -> AskRequest | None:
    """A question already asked with this idempotency key: its fingerprint and its result (JSON)."""
    return first_record(
        db,
        AskRequest,
        "SELECT fingerprint, result FROM ask_requests WHERE principal_id = ? AND idempotency_key = ?",
        [principal_id, key],
    )


def remember_ask(
    db: Database, principal_id: int, key: str, fingerprint: str, result: str, stamp: str
) -> None:
    db.insert(
        "ask_requests",
        {
            "principal_id": principal_id,
            "idempotency_key": key,
            "fingerprint": fingerprint,
            "result": result,
            "created_at": stamp,
        },
    )


def threads_of(db: Database, principal_id: int, limit: int) -> list[ListedThread]:
    """Threads this principal asked or was asked in, newest first, with the other party's handle."""
    return records(
        db,
        ListedThread,
        """SELECT t.id, t.subject, t.updated_at, t.asker_id, a.handle AS asker,
                  CASE WHEN t.asker_id = :me THEN b.handle ELSE a.handle END AS other
           FROM threads t JOIN principals a ON a.id = t.asker_id JOIN principals b ON b.id = t.answerer_id
           WHERE t.asker_id = :me OR t.answerer_id = :me
           ORDER BY t.updated_at DESC, t.id DESC LIMIT :limit""",
        {"me": principal_id, "limit": limit},
    )


def questions_since(db: Database, asker_id: int, since: str) -> int:
    return number(
        db.execute(
            "SELECT COUNT(*) FROM messages m JOIN threads t ON t.id = m.thread_id "
            "WHERE t.asker_id = ? AND m.kind = 'question' AND m.created_at >= ?",
            [asker_id, since],
        )
    )


def file_escalation(
    db: Database,
    *,
    principal_id: int,
    asker_id: int,
    asker_agent: str | None,
    thread_id: int,
    question: str,
    language: str,
    reason: str,
    stamp: str,
    notes: list[str] | None = None,
) -> int:
    """`notes`: ids of the briefing notes the principal should see beside the question."""
    return db.insert(
        "escalations",
        {
            "principal_id": principal_id,
            "asker_id": asker_id,
            "asker_agent": asker_agent,
            "thread_id": thread_id,
            "question": question,
            "language": language,
            "reason": reason,
            "status": "open",
            "decision": None,
            "created_at": stamp,
            "decided_at": None,
            "notes": json.dumps(notes) if notes else None,
        },
    )


_ESCALATION = """SELECT e.id, e.principal_id, e.asker_id, e.asker_agent, e.thread_id, e.question,
                  e.language, e.reason, e.status, e.decision, e.created_at, e.decided_at, e.notes,
                  e.decided_via, e.decided_session, e.answered_with,
                  p.handle AS asker, p.status AS asker_status
           FROM escalations e JOIN principals p ON p.id = e.asker_id"""


def queue(db: Database, principal_id: int, status: str = "open") -> list[Escalation]:
    return records(
        db,
        Escalation,
        f"{_ESCALATION} WHERE e.principal_id = ? AND e.status = ? ORDER BY e.id",
        [principal_id, status],
    )


def open_count(db: Database, principal_id: int) -> int:
    return number(
        db.execute(
            "SELECT COUNT(*) FROM escalations WHERE principal_id = ? AND status = 'open'",
            [principal_id],
        )
    )


def escalation(db: Database, principal_id: int, escalation_id: int) -> Escalation | None:
    """One escalation of this principal's queue; another principal's answers None, like a missing one."""
    return first_record(
        db,
        Escalation,
        f"{_ESCALATION} WHERE e.id = ? AND e.principal_id = ?",
        [escalation_id, principal_id],
    )


def decide(
    db: Database,
    escalation_id: int,
    status: str,
    decision: str,
    stamp: str,
    *,
    via: str | None = None,
    session_id: int | None = None,
    note_id: int | None = None,
) -> bool:
    """Close an open escalation, recording how it was decided (`via`: console or cli, the console
    session's row, the note that answered); False when it was no longer open (decided meanwhile)."""
    return (
        db.execute(
            "UPDATE escalations SET status = ?, decision = ?, decided_at = ?, decided_via = ?, "
            "decided_session = ?, answered_with = ? WHERE id = ? AND status = 'open'",
            [status, decision, stamp, via, session_id, note_id, escalation_id],
        ).rowcount
        == 1
    )
