"""Rows of `rules`: rules drafted, published and removed through `parley rules`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.store.database import Database, records

# A rule's state, as the `rules.state` column's CHECK allows it.
RuleState = Literal["draft", "published", "removed"]


@dataclass(frozen=True, slots=True)
class RuleRow:
    """A stored rule as the rule book reads it: its binding, its name and its JSON body."""

    id: int
    agent: str
    tool: str
    name: str
    body: str


@dataclass(frozen=True, slots=True)
class LiveRuleRow(RuleRow):
    """A rule not removed, with its state and when its removal was drafted (None: not drafted)."""

    state: RuleState
    removal_drafted_at: str | None


def in_state(db: Database, state: RuleState) -> list[RuleRow]:
    """id, agent, tool, name and JSON body of every rule in this state, oldest first."""
    return records(
        db,
        RuleRow,
        "SELECT id, agent, tool, name, body FROM rules WHERE state = ? ORDER BY id",
        [state],
    )


def live(db: Database) -> list[LiveRuleRow]:
    return records(
        db,
        LiveRuleRow,
        "SELECT id, state, agent, tool, name, body, removal_drafted_at FROM rules "
        "WHERE state != 'removed' ORDER BY id",
    )


def add_draft(db: Database, agent: str, tool: str, name: str, body: str, stamp: str) -> int:
    return db.insert(
        "rules",
        {
            "agent": agent,
            "tool": tool,
            "name": name,
            "body": body,
            "state": "draft",
            "created_at": stamp,
            "published_at": None,
            "removed_at": None,
        },
    )


def publish(db: Database, rule_id: int, stamp: str) -> bool:
    return (
        db.execute(
            "UPDATE rules SET state = 'published', published_at = ? WHERE id = ? AND state = 'draft'",
            [stamp, rule_id],
        ).rowcount
        == 1
    )


def remove(db: Database, rule_id: int, stamp: str) -> bool:
    return (
        db.execute(
            "UPDATE rules SET state = 'removed', removed_at = ? WHERE id = ? "
            "AND state IN ('draft', 'published')",
            [stamp, rule_id],
        ).rowcount
        == 1
    )


def mark_removal(db: Database, rule_id: int, stamp: str) -> bool:
    """Draft a published rule's removal: it stays in force until the next publish removes it."""
    return (
        db.execute(
            "UPDATE rules SET removal_drafted_at = ? WHERE id = ? AND state = 'published' "
            "AND removal_drafted_at IS NULL",
            [stamp, rule_id],
        ).rowcount
        == 1
    )


def unmark_removal(db: Database, rule_id: int) -> bool:
    return (
        db.execute(
            "UPDATE rules SET removal_drafted_at = NULL WHERE id = ? AND state = 'published' "
            "AND removal_drafted_at IS NOT NULL",
            [rule_id],
        ).rowcount
        == 1
    )


def marked(db: Database) -> list[RuleRow]:
    """Published rules whose removal is drafted, oldest first."""
    return records(
        db,
        RuleRow,
        "SELECT id, agent, tool, name, body FROM rules WHERE state = 'published' "
        "AND removal_drafted_at IS NOT NULL ORDER BY id",
    )
