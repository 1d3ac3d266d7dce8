"""Counts for the console's picture of a member's week: questions asked of them and answered, day by
day; what waits in their queue and since when; their agents' calls refused, by rule."""

from __future__ import annotations

from dataclasses import dataclass

from server.store.database import Database, integer, records, text
from server.store.principals import PrincipalStatus


def questions_by_day(db: Database, principal_id: int, since: str) -> dict[str, dict[str, int]]:
    """Day (YYYY-MM-DD) → {"asked": n, "answered": n}: questions put to this member's answering agent,
    and answers that went back (the agent's own, or the member's decision)."""
    rows = db.execute(
        """SELECT substr(m.created_at, 1, 10) AS day,
                  SUM(CASE WHEN m.kind = 'question' THEN 1 ELSE 0 END),
                  SUM(CASE WHEN m.kind IN ('answer', 'decision') THEN 1 ELSE 0 END)
           FROM messages m JOIN threads t ON t.id = m.thread_id
           WHERE t.answerer_id = ? AND m.created_at >= ?
           GROUP BY substr(m.created_at, 1, 10)""",
        [principal_id, since],
    ).fetchall()
    return {
        text(row[0]): {"asked": integer(row[1] or 0), "answered": integer(row[2] or 0)}
        for row in rows
    }


@dataclass(frozen=True, slots=True)
class RuleRefusals:
    """How many of a principal's agents' calls one rule refused, on one tool of one binding."""

    rule: str
    tool: str
    binding_agent: str | None
    count: int


def refusals_by_rule(db: Database, handle: str, since: str, limit: int = 6) -> list[RuleRefusals]:
    """This principal's agents' calls a rule refused since `since`: rule, tool, the binding's agent,
    count."""
    return records(
        db,
        RuleRefusals,
        """SELECT rule, tool, binding_agent, COUNT(*) AS count FROM audit
           WHERE principal = ? AND rule IS NOT NULL AND ts >= ?
           GROUP BY rule, tool, binding_agent ORDER BY COUNT(*) DESC, rule LIMIT ?""",
        [handle, since, limit],
    )


def standing(db: Database) -> dict[str, int]:
    """How many principals are applicants, members, suspended (for a steward's Home)."""
    rows = db.execute("SELECT status, COUNT(*) FROM principals GROUP BY status").fetchall()
    counts = {status.value: 0 for status in PrincipalStatus}
    counts.update({text(row[0]): integer(row[1]) for row in rows})
    return counts
