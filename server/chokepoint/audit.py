"""The audit log: every tools/call, with who and how it ended, and never what was sent.

Argument values and tokens never reach this table; the outcome is a fixed word.
"""

from __future__ import annotations

import sqlite_utils

from server.identity.resolver import Caller
from server.store.database import now

OUTCOMES = ("ok", "tool_error", "invalid_input", "unknown_tool", "internal_error",
            "rule_denied", "source_blocked", "rule_error")


def record(db: sqlite_utils.Database, caller: Caller, tool: str, outcome: str, duration_ms: float,
           rule: str | None = None) -> None:
    """One row per tools/call: the binding and the rule's name, never the call's values or attributes."""
    assert outcome in OUTCOMES, outcome
    binding = f"{caller.entry_agent} · parley · {tool[:64]}" if caller.entry_agent else None
    db.execute(
        "INSERT INTO audit (ts, lane, principal, agent, tool, outcome, duration_ms, binding, rule) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [now(), caller.lane, caller.principal, caller.agent, tool[:64], outcome, round(duration_ms, 3), binding, rule],
    )


def tail(db: sqlite_utils.Database, limit: int = 20) -> list[dict]:
    rows = db.query(
        "SELECT ts, lane, principal, agent, tool, outcome, duration_ms, binding, rule FROM audit "
        "ORDER BY id DESC LIMIT ?", [limit]
    )
    return list(reversed(list(rows)))
