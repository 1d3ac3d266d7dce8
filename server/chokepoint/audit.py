"""The audit log: every tools/call, with who and how it ended, and never what was sent.

Argument values and tokens never reach this table; the outcome is a fixed word, and a tool name
the caller made up is stored only as safe, bounded text.
"""

from __future__ import annotations

import re

from server.access import Caller
from server.store import audit as audit_rows
from server.store.database import Database, now

OUTCOMES = ("ok", "tool_error", "invalid_input", "unknown_tool", "internal_error",
            "rule_denied", "source_blocked", "rule_error")
NAME_LIMIT = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]")


def safe_name(name: str) -> str:
    """A caller-supplied tool name as printable, bounded text: no escape codes, no newlines."""
    cleaned = _UNSAFE.sub("?", name[:NAME_LIMIT])
    return cleaned + ("…" if len(name) > NAME_LIMIT else "")


def record(db: Database, caller: Caller, tool: str, outcome: str, duration_ms: float, rule: str | None = None) -> None:
    """One row per tools/call: the binding and the rule's name, never the call's values or attributes."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown audit outcome {outcome!r}")
    name = safe_name(tool)
    audit_rows.insert(db, {
        "ts": now(), "lane": caller.lane, "principal": caller.principal, "agent": caller.agent, "tool": name,
        "outcome": outcome, "duration_ms": round(duration_ms, 3),
        "binding": f"{caller.entry_persona} · parley · {name}" if caller.entry_persona else None, "rule": rule,
    })


def tail(db: Database, limit: int = 20, principal: str | None = None) -> list[dict]:
    return audit_rows.tail(db, limit, principal)
