"""Rows of `rules`: rules drafted, published and removed through `parley rules`."""

from __future__ import annotations

from server.store.database import Database
from server.store.database import insert as insert_row


def in_state(db: Database, state: str) -> list[dict]:
    """id, agent, tool, name and JSON body of every rule in this state, oldest first."""
    return list(db.query("SELECT id, agent, tool, name, body FROM rules WHERE state = ? ORDER BY id", [state]))


def live(db: Database) -> list[dict]:
    return list(db.query("SELECT id, state, agent, tool, name, body FROM rules WHERE state != 'removed' ORDER BY id"))


def add_draft(db: Database, agent: str, tool: str, name: str, body: str, stamp: str) -> int:
    return insert_row(db, "rules", {"agent": agent, "tool": tool, "name": name, "body": body, "state": "draft",
                               "created_at": stamp, "published_at": None, "removed_at": None})


def publish(db: Database, rule_id: int, stamp: str) -> bool:
    return db.execute("UPDATE rules SET state = 'published', published_at = ? WHERE id = ? AND state = 'draft'",
                      [stamp, rule_id]).rowcount == 1


def remove(db: Database, rule_id: int, stamp: str) -> bool:
    return db.execute("UPDATE rules SET state = 'removed', removed_at = ? WHERE id = ? "
                      "AND state IN ('draft', 'published')", [stamp, rule_id]).rowcount == 1
