"""Rows the principal console reads and writes beyond the other store modules: tokens with their
labels and last use, applications with their decisions, and each agent's last activity."""

from __future__ import annotations

from dataclasses import dataclass

from server.store.database import Database, first_record, records, text
from server.store.tokens import ListedToken, listed_tokens


@dataclass(frozen=True, slots=True)
class Applicant:
    """An applicant and their newest application (open when they never sent one, dated when they
    joined), with how much evidence they gave."""

    id: int
    handle: str
    name: str
    joined_at: str
    applied_at: str
    status: str  # open | admitted | declined
    decided_at: str | None
    decision: str | None
    evidence_count: int


@dataclass(frozen=True, slots=True)
class Application:
    """A principal's newest application and what a steward decided on it."""

    id: int
    status: str  # open | admitted | declined
    created_at: str
    decided_at: str | None
    decision: str | None


def tokens_of(db: Database, principal_id: int) -> list[ListedToken]:
    """A principal's tokens, newest first, with label, expiry and last use (never the secret)."""
    return listed_tokens(db, principal_id, newest_first=True)


def last_activity(db: Database, handle: str) -> dict[str, str]:
    """Each of a principal's agents' newest audited call: agent name → timestamp."""
    rows = db.execute(
        "SELECT agent, MAX(ts) FROM audit WHERE principal = ? AND agent IS NOT NULL GROUP BY agent",
        [handle],
    ).fetchall()
    return {text(row[0]): text(row[1]) for row in rows}


def applications(db: Database) -> list[Applicant]:
    """Every applicant with their newest application (its date, status, decision) and evidence count.
    An applicant who never sent an application reads as open, dated when they joined."""
    return records(
        db,
        Applicant,
        """SELECT p.id, p.handle, p.name, p.created_at AS joined_at,
                  COALESCE(a.created_at, p.created_at) AS applied_at, COALESCE(a.status, 'open') AS status,
                  a.decided_at, a.decision,
                  (SELECT COUNT(*) FROM evidence e WHERE e.principal_id = p.id) AS evidence_count
           FROM principals p
           LEFT JOIN applications a ON a.id = (SELECT MAX(id) FROM applications WHERE principal_id = p.id)
           WHERE p.status = 'applicant' ORDER BY applied_at, p.id""",
    )


def application_decision(db: Database, principal_id: int) -> Application | None:
    """The newest application of a principal: status (open | admitted | declined), decided_at, and the
    decision — the reason a steward gave, which the applicant's agent reads in its inbox."""
    return first_record(
        db,
        Application,
        "SELECT id, status, created_at, decided_at, decision FROM applications "
        "WHERE principal_id = ? ORDER BY id DESC LIMIT 1",
        [principal_id],
    )


def decide_application(
    db: Database, principal_id: int, status: str, decision: str, stamp: str
) -> int:
    """Mark a principal's open applications admitted or declined, with the reason; how many changed."""
    return db.execute(
        "UPDATE applications SET status = ?, decided_at = ?, decision = ? "
        "WHERE principal_id = ? AND status = 'open'",
        [status, stamp, decision, principal_id],
    ).rowcount


def has_own_router_settings(db: Database, principal_id: int) -> bool:
    """Whether the member chose their own router settings (else the club's defaults hold)."""
    return (
        db.execute(
            "SELECT 1 FROM router_settings WHERE principal_id = ?", [principal_id]
        ).fetchone()
        is not None
    )


def reopen_application(db: Database, principal_id: int) -> int:
    """A steward reconsiders a decline: the newest application, if declined, waits again (1) or nothing (0)."""
    return db.execute(
        "UPDATE applications SET status = 'open', decided_at = NULL, decision = NULL "
        "WHERE id = (SELECT MAX(id) FROM applications WHERE principal_id = ?) AND status = 'declined'",
        [principal_id],
    ).rowcount
