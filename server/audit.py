"""The audit log: every tools/call, with who and how it ended, and never what was sent.

Argument values and tokens never reach this table; the outcome is a fixed word.
"""

from __future__ import annotations

import sqlite_utils

from server.identity import Caller
from server.store import now

OUTCOMES = ("ok", "tool_error", "invalid_input", "unknown_tool", "internal_error")


def record(db: sqlite_utils.Database, caller: Caller, tool: str, outcome: str, duration_ms: float) -> None:
    assert outcome in OUTCOMES, outcome
    db.execute(
        "INSERT INTO audit (ts, lane, principal, agent, tool, outcome, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [now(), caller.lane, caller.principal, caller.agent, tool[:64], outcome, round(duration_ms, 3)],
    )


def tail(db: sqlite_utils.Database, limit: int = 20) -> list[dict]:
    rows = db.query(
        "SELECT ts, lane, principal, agent, tool, outcome, duration_ms FROM audit ORDER BY id DESC LIMIT ?", [limit]
    )
    return list(reversed(list(rows)))
