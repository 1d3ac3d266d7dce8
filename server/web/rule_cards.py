"""Rules as the console's cards show them (never a call's values, only what the steward wrote):
each binding's panel of them on the Rules page, and what publishing the draft changes on each
binding, as the publish page reviews it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from server.chokepoint.rulebook import RuleBook
from server.chokepoint.rules import Rule
from server.chokepoint.stored_rules import BrokenRule


@dataclass(frozen=True)
class Card:
    """One rule as the panel shows it: never a call's values, only what the steward wrote."""

    name: str
    state: str  # manifest | published | draft | broken
    reads_as: str  # the sentence, or the CEL when the builder cannot say it
    cel: bool
    rule_id: int | None = None
    problem: str | None = None
    removing: bool = False  # in force until the next publish removes it


class BindingPanel(TypedDict):
    """One binding of a tool (agent · parley · tool) and its rules, as the tool's panel shows."""

    agent: str
    binding: str
    cards: list[Card]


class PublishChange(TypedDict):
    """What publishing changes on one binding: rules it adds, removes, and keeps in force."""

    binding: str
    tool: str
    adds: list[Card]
    removes: list[Card]
    kept: list[Card]


def card_of(rule: Rule, state: str, removing: frozenset[int] = frozenset()) -> Card:
    rule_id = int(rule.origin.removeprefix("store:")) if rule.origin.startswith("store:") else None
    return Card(
        rule.name,
        state,
        rule.expression if rule.is_cel else rule.reads_as,
        rule.is_cel,
        rule_id,
        removing=rule_id in removing,
    )


def publish_summary(rulebook: RuleBook) -> list[PublishChange]:
    """What publishing changes, per binding: the rules it adds, and the rules already in force."""
    rulebook.refresh()
    removing = frozenset(row.id for row in rulebook.removals())
    by_binding: dict[tuple[str, str], PublishChange] = {}

    def entry(agent: str, tool: str) -> PublishChange:
        if (agent, tool) not in by_binding:
            cards = [
                card_of(rule, "published", removing) for rule in rulebook.rules_for(agent, tool)
            ]
            by_binding[(agent, tool)] = PublishChange(
                binding=f"{agent} · parley · {tool}",
                tool=tool,
                adds=[],
                removes=[card for card in cards if card.removing],
                kept=[card for card in cards if not card.removing],
            )
        return by_binding[(agent, tool)]

    for row, compiled in rulebook.drafts():
        entry(row.agent, row.tool)["adds"].append(
            Card(row.name, "draft", "", False, row.id, compiled.problem)
            if isinstance(compiled, BrokenRule)
            else card_of(compiled[0], "draft")
        )
    for row in rulebook.removals():
        found = entry(row.agent, row.tool)
        if all(card.rule_id != row.id for card in found["removes"]):  # one that no longer compiles
            found["removes"].append(
                Card(
                    row.name,
                    "broken",
                    "",
                    False,
                    row.id,
                    "It no longer compiles",
                    removing=True,
                )
            )
    return list(by_binding.values())


def binding_panels(rulebook: RuleBook, agents: list[str], tool: str) -> list[BindingPanel]:
    """Each binding of a tool (agent · parley · tool) with its rules: in force, broken, drafted."""
    drafts = rulebook.drafts()
    removing = frozenset(row.id for row in rulebook.removals())
    panel: list[BindingPanel] = []
    for agent in agents:
        cards = [
            card_of(
                rule,
                "manifest" if rule.origin.startswith("manifest:") else "published",
                removing,
            )
            for rule in rulebook.rules_for(agent, tool)
        ]
        cards += [
            Card(
                rule.name,
                "broken",
                "",
                False,
                rule.rule_id,
                rule.problem,
                removing=rule.rule_id in removing,
            )
            for rule in rulebook.broken(agent, tool)
        ]
        for row, compiled in drafts:
            if (row.agent, row.tool) == (agent, tool):
                cards.append(
                    Card(row.name, "draft", "", False, row.id, compiled.problem)
                    if isinstance(compiled, BrokenRule)
                    else card_of(compiled[0], "draft")
                )
        binding = f"{agent} · parley · {tool}"
        panel.append(BindingPanel(agent=agent, binding=binding, cards=cards))
    return panel
