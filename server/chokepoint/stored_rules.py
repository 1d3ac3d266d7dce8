"""The rules a steward keeps in the store: drafted, published (never edited: removed and replaced,
in one unit), removed, and listed beside the manifest's. A stored rule that no longer compiles is a
BrokenRule: its binding's tool refuses every call, naming it (fail closed), until a steward fixes or
removes it. A mixin of the RuleBook (rulebook.py), which applies the rules in force.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.chokepoint.outcomes import Outcome
from server.chokepoint.rules import Rule, RuleError, RuleListing
from server.manifest.schema import RuleDecl
from server.store import rules as rule_rows
from server.store.database import Database, now, write
from server.store.rules import RuleRow, RuleState

BROKEN = "this rule no longer compiles; a steward must fix or remove it"


@dataclass(frozen=True)
class Denial:
    """A refusal as the caller reads it: its outcome and message, naming the rule, never a value."""

    outcome: Outcome  # RULE_DENIED, SOURCE_BLOCKED, RULE_ERROR or RULE_BROKEN
    message: str
    rule: str | None = None


@dataclass(frozen=True)
class BrokenRule:
    """A published rule in the store that no longer compiles: while it stays, its binding's tool refuses
    every call (fail closed). `reason` is the compiler's message: names and types, never a call's values."""

    rule_id: int
    agent: str
    tool: str
    name: str
    reason: str

    @property
    def binding(self) -> str:
        return f"{self.agent} · parley · {self.tool}"

    @property
    def problem(self) -> str:
        """The reason without the rule's name in front, for a page that names the rule already."""
        text = self.reason.removeprefix(f"rule '{self.name}': ")
        return text[:1].upper() + text[1:]

    @property
    def denial(self) -> Denial:
        return Denial(
            Outcome.RULE_BROKEN,
            f'Blocked by rule "{self.name}": {BROKEN}. The call was not made.',
            self.name,
        )


class StoredRules:
    """Drafts, publishing and removal over the RuleBook's store and compiled rules."""

    db: Database | None
    manifest_rules: list[Rule]

    if TYPE_CHECKING:
        # defined by RuleBook (rulebook.py)
        def compile(self, decl: RuleDecl, origin: str) -> list[Rule]: ...

        def _rows(self, state: RuleState) -> list[RuleRow]: ...

        def _compiled(self, row: RuleRow) -> list[Rule] | BrokenRule: ...

        def refresh(self, known: int | None = None) -> None: ...

        def _store(self) -> Database: ...

    # --- drafts ----------------------------------------------------------------------------------

    def draft(self, decl: RuleDecl) -> list[int]:
        """Add a rule to the draft, one row per binding, after checking it compiles."""
        self.compile(decl, "draft")
        ids = []
        with write(self._store()):
            for binding in decl.bindings():
                single = decl.model_copy(
                    update={"binding": {"agent": binding.agent, "tool": binding.tool}}
                )
                ids.append(
                    rule_rows.add_draft(
                        self._store(),
                        binding.agent,
                        binding.tool,
                        decl.name,
                        single.model_dump_json(),
                        now(),
                    )
                )
        return ids

    def publish(
        self,
        rule_id: int | None = None,
        ids: Collection[int] | None = None,
        removals: Collection[int] | None = None,
    ) -> list[int]:
        """Put drafts in force and drafted removals into effect, in one unit: one draft, or the `ids` and
        `removals` a steward reviewed, or (neither named) everything drafted. Each draft is checked again
        first (boolean, attributes that exist): a draft that stopped compiling since it was drafted is
        refused, naming why, and nothing changes. Returns the ids put in force."""
        everything = rule_id is None and ids is None and removals is None
        wanted = {rule_id} if rule_id is not None else set(ids or ()) if not everything else None
        drafts = [row for row in self._rows("draft") if wanted is None or row.id in wanted]
        if rule_id is not None and not drafts:
            raise RuleError(f"no draft rule {rule_id}")
        marked = {row.id for row in rule_rows.marked(self._store())}
        retiring = marked if everything else set(removals or ()) & marked
        gone = sorted((wanted or set()) - {row.id for row in drafts}) + sorted(
            set(removals or ()) - marked
        )
        if gone:
            raise RuleError(
                f"rule {', '.join(f'store:{i}' for i in gone)} changed since you looked, so nothing was "
                "published; review the draft again"
            )
        for row in drafts:
            compiled = self._compiled(row)
            if isinstance(compiled, BrokenRule):
                raise RuleError(
                    f"draft store:{row.id} no longer compiles, so nothing was published: "
                    f"{compiled.reason}; remove it and draft it again"
                )
        with write(self._store()):
            stamp = now()
            for row in drafts:
                rule_rows.publish(self._store(), row.id, stamp)
            for removed in sorted(retiring):
                rule_rows.remove(self._store(), removed, stamp)
        self.refresh()
        return [row.id for row in drafts]

    def remove(self, rule_id: int, at_publish: bool = False) -> None:
        """Remove a rule from the store: at once, or (`at_publish`, for a rule in force) at the next publish,
        so that a replacement drafted beside it goes into force in the same unit, with no gap between.
        A draft holds nothing back, so it always goes at once."""
        if at_publish:
            with write(self._store()):
                marked = rule_rows.mark_removal(self._store(), rule_id, now())
            if marked:
                self.refresh()
                return
            if any(row.id == rule_id for row in rule_rows.marked(self._store())):
                raise RuleError(
                    f"the removal of rule {rule_id} is in the draft already: publish it, or keep the rule"
                )
        removed = rule_rows.remove(self._store(), rule_id, now())
        self.refresh()
        if not removed:
            raise RuleError(
                f"no draft or published rule {rule_id} in the store (manifest rules are removed by "
                "editing the manifest)"
            )

    def keep(self, rule_id: int) -> None:
        """Withdraw a drafted removal: the rule stays in force."""
        with write(self._store()):
            kept = rule_rows.unmark_removal(self._store(), rule_id)
        self.refresh()
        if not kept:
            raise RuleError(f"rule {rule_id} has no drafted removal")

    def removals(self) -> list[RuleRow]:
        """Published rules whose removal is drafted (id, agent, tool, name): in force until the next publish."""
        return rule_rows.marked(self.db) if self.db is not None else []

    def drafts(self) -> list[tuple[RuleRow, list[Rule] | BrokenRule]]:
        """Every draft in the store (id, agent, tool, name) with what it compiles to today, or why not."""
        return [(row, self._compiled(row)) for row in self._rows("draft")]

    def listing(self) -> list[RuleListing]:
        self.refresh()
        rows = [
            RuleListing(
                id=rule.origin,
                state="published",
                binding=str(rule.binding),
                name=rule.name,
                reads_as=rule.reads_as,
                problem=None,
                removal_drafted=False,
            )
            for rule in self.manifest_rules
        ]
        if self.db is not None:
            for row in rule_rows.live(self.db):
                compiled = self._compiled(row)
                problem = compiled.reason if isinstance(compiled, BrokenRule) else None
                reads_as = (
                    f"(does not compile: {problem})"
                    if isinstance(compiled, BrokenRule)
                    else compiled[0].reads_as
                )
                rows.append(
                    RuleListing(
                        id=f"store:{row.id}",
                        state=row.state,
                        binding=f"{row.agent} · parley · {row.tool}",
                        name=row.name,
                        reads_as=reads_as,
                        problem=problem,
                        removal_drafted=row.removal_drafted_at is not None,
                    )
                )
        return rows
