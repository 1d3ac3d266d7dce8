"""Rows of `rules`: rules drafted, published and removed through `parley rules`."""

from __future__ import annotations

from server.store.database import Database, Row


def in_state(db: Database, state: str) -> list[Row]:
    """id, agent, tool, name and JSON body of every rule in this state, oldest first."""
    return list(db.query("SELECT id, agent, tool, name, body FROM rules WHERE state = ? ORDER BY id", [state]))


def live(db: Database) -> list[Row]:
    return list(db.query("SELECT id, state, agent, tool, name, body, removal_drafted_at FROM rules WHERE state != 'removed' ORDER BY id"))


def add_draft(db: Database, agent: str, tool: str, name: str, body: str, stamp: str) -> int:
    return db.insert("rules", {"agent": agent, "tool": tool, "name": name, "body": body, "state": "draft",
                               "created_at": stamp, "published_at": None, "removed_at": None})


def publish(db: Database, rule_id: int, stamp: str) -> bool:
    return db.execute("UPDATE rules SET state = 'published', published_at = ? WHERE id = ? AND state = 'draft'",
                      [stamp, rule_id]).rowcount == 1


def remove(db: Database, rule_id: int, stamp: str) -> bool:
    return db.execute("UPDATE rules SET state = 'removed', removed_at = ? WHERE id = ? "
                      "AND state IN ('draft', 'published')", [stamp, rule_id]).rowcount == 1


def mark_removal(db: Database, rule_id: int, stamp: str) -> bool:
    """Draft a published rule's removal: it stays in force until the next publish removes it."""
    return db.execute("UPDATE rules SET removal_drafted_at = ? WHERE id = ? AND state = 'published' "
                      "AND removal_drafted_at IS NULL", [stamp, rule_id]).rowcount == 1


def unmark_removal(db: Database, rule_id: int) -> bool:
    return db.execute("UPDATE rules SET removal_drafted_at = NULL WHERE id = ? AND state = 'published' "
                      "AND removal_drafted_at IS NOT NULL", [rule_id]).rowcount == 1


def marked(db: Database) -> list[Row]:
    """Published rules whose removal is drafted, oldest first."""
    return list(db.query("SELECT id, agent, tool, name, body FROM rules WHERE state = 'published' "
                         "AND removal_drafted_at IS NOT NULL ORDER BY id"))
