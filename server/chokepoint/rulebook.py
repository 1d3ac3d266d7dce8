"""The rule book: every rule in force, by binding, and the step of the chokepoint that applies them.

Rules come from the manifest (published with it) and from the store, where `parley rules draft`
adds a draft and `publish` puts it in force. A published rule is never edited: it is removed and
replaced. A denial names the rule and reads it as a sentence; it never carries the evaluated
values, and neither does the audit log.

A stored rule that no longer compiles (the manifest renamed an argument, changed a type, or lost the
context source of an attribute it reads) fails closed: its binding's tool refuses every call, naming
the rule, until a steward fixes or removes it. It is never skipped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import cel
from pydantic import ValidationError

from server.access import Caller
from server.chokepoint.context_sources import IDENTITY, ContextSources, SourceFailed
from server.chokepoint.outcomes import Outcome
from server.chokepoint.rules import (
    Rule,
    RuleContext,
    RuleError,
    argument_types,
    compile_rule,
    together,
)
from server.chokepoint.stored_rules import BROKEN, BrokenRule, Denial, StoredRules
from server.manifest.schema import Binding, Manifest, Problem, RuleDecl
from server.store import rules as rule_rows
from server.store.database import Database, revision
from server.store.rules import RuleRow, RuleState

if TYPE_CHECKING:  # whoami's shape, declared beside ToolContext: no need to load the tools here
    from server.tools.registry import RuleSentence


log = logging.getLogger("parley.rules")

# A rule measured at most this many token evaluations (`rule_cost`) runs on the event loop, in
# microseconds; a costlier one (bounded too, at `rule_cost.MAX_COST`) runs in a worker thread, and a
# call whose rule overruns `EVALUATION_SECONDS` there is refused, naming the rule (fail closed).
INLINE_COST = 256
EVALUATION_SECONDS = 0.5
COMPILED_KEPT = 512  # stored rules kept compiled, by id and body
# the path of one decision: ("rule" | "source", its name, what happened), never a value
Trail = list[tuple[str, str, str]]


@dataclass(frozen=True)
class InForce:
    """Everything that holds calls back as of one refresh, replaced whole: a call read beside a refresh
    (on PostgreSQL both run in worker threads) sees the old book or the new, never half of each."""

    by_binding: dict[tuple[str, str], list[Rule]]
    # a binding's rules as one program (see `rules.together`), beside the very list it was made of
    together: dict[tuple[str, str], tuple[list[Rule], cel.Program]]
    broken: dict[tuple[str, str], list[BrokenRule]]
    guarded: frozenset[
        tuple[str, str]
    ]  # bindings a call must be checked on: rules, or a broken one


def _binding(agent: str | None, tool: str) -> tuple[str, str]:
    """The key a binding's rules (and their one program) are kept under: no persona is ""."""
    return (agent or "", tool)


class RuleBook(StoredRules):
    def __init__(
        self,
        manifest: Manifest,
        db: Database | None,
        sources: ContextSources,
        input_schemas: dict[str, dict[str, object]],
        compile_manifest: bool = True,
        evaluation_seconds: float = EVALUATION_SECONDS,
    ):
        self.manifest = manifest
        self.evaluation_seconds = evaluation_seconds
        # a stored rule compiled once for its body: a refresh for an unrelated change compiles nothing
        self._compiled_rows: dict[tuple[int, str], list[Rule] | BrokenRule] = {}
        self.db = db
        self.sources = sources
        self.input_schemas = input_schemas
        self._revision: int | None = None
        self._in_force = InForce({}, {}, {}, frozenset())
        self.manifest_rules = (
            self._compile_all([(decl, f"manifest:{i}") for i, decl in enumerate(manifest.rules)])
            if compile_manifest
            else []
        )
        self.refresh()

    # --- checking and compiling ----------------------------------------------------------------

    def types_for(self, binding: Binding) -> dict[str, str]:
        schema = self.input_schemas.get(binding.tool)
        if schema is None:
            raise RuleError(f"binding {binding}: unknown tool '{binding.tool}'")
        types = {f"args.{name}": kind for name, kind in argument_types(schema).items()}
        types.update(self.sources.types())
        return types

    def compile(self, decl: RuleDecl, origin: str) -> list[Rule]:
        rules = []
        for binding in decl.bindings():
            if binding.agent not in self.manifest.agents:
                raise RuleError(f"rule '{decl.name}': unknown agent '{binding.agent}'")
            if binding.tool not in self.manifest.tools:
                raise RuleError(f"rule '{decl.name}': unknown tool '{binding.tool}'")
            rules.append(compile_rule(decl, binding, self.types_for(binding), origin))
        return rules

    def _compile_all(self, decls: list[tuple[RuleDecl, str]]) -> list[Rule]:
        return [rule for decl, origin in decls for rule in self.compile(decl, origin)]

    # --- what is in force ----------------------------------------------------------------------

    def _rows(self, state: RuleState) -> list[RuleRow]:
        return rule_rows.in_state(self.db, state) if self.db is not None else []

    def _compiled(self, row: RuleRow) -> list[Rule] | BrokenRule:
        """A stored rule compiled against today's manifest, or what keeps it from compiling; kept by
        the row's id and body (the manifest and context sources of a book never change)."""
        key = (row.id, row.body)
        found = self._compiled_rows.get(key)
        if found is None:
            if len(self._compiled_rows) >= COMPILED_KEPT:
                self._compiled_rows.clear()
            found = self._compiled_rows[key] = self._compile_row(row)
        return found

    def _compile_row(self, row: RuleRow) -> list[Rule] | BrokenRule:
        try:
            return self.compile(RuleDecl.model_validate_json(row.body), f"store:{row.id}")
        except RuleError as exc:
            reason = str(exc)
        except ValidationError:
            reason = f"rule '{row.name}': its stored form no longer reads as a rule"
        except Exception:  # noqa: BLE001 - whatever fails, the rule still holds its tool back
            log.exception("stored rule %s failed to compile", row.id)
            reason = f"rule '{row.name}': it failed to compile"
        return BrokenRule(row.id, row.agent, row.tool, row.name, reason)

    @property
    def in_force(self) -> int | None:
        """The store's revision the rules in force were read at."""
        return self._revision

    def current_at(self, known: int | None) -> bool:
        """Whether the rules in force were read at the revision `known` (no refresh needed)."""
        return known is not None and known == self._revision

    def refresh(self, known: int | None = None) -> None:
        """Recompile what changed since the store's revision `known` (read for this request already,
        when the caller's credential was resolved), or read it now."""
        current = known if known is not None else (revision(self.db) if self.db is not None else 0)
        if current == self._revision:
            return
        published: list[Rule] = []
        broken: dict[tuple[str, str], list[BrokenRule]] = {}
        for row in self._rows("published"):
            compiled = self._compiled(row)
            if isinstance(compiled, BrokenRule):  # fail closed: it holds its whole tool back
                broken.setdefault(_binding(compiled.agent, compiled.tool), []).append(compiled)
            else:
                published += compiled
        by_binding: dict[tuple[str, str], list[Rule]] = {}
        for rule in self.manifest_rules + published:
            by_binding.setdefault((rule.binding.agent, rule.binding.tool), []).append(rule)
        combined = {
            key: (rules, program)
            for key, rules in by_binding.items()
            if (program := together(rules)) is not None
        }
        self._in_force = InForce(
            by_binding, combined, broken, frozenset(by_binding) | frozenset(broken)
        )
        self._revision = current

    def rules_for(self, agent: str | None, tool: str) -> list[Rule]:
        """The rules in force as of the last `refresh`."""
        return self._in_force.by_binding.get(_binding(agent, tool), [])

    def guards(self, agent: str | None, tool: str) -> bool:
        """Whether a call on this binding must pass `check`: it has rules in force, or a broken one."""
        return _binding(agent, tool) in self._in_force.guarded

    def broken(self, agent: str | None = None, tool: str | None = None) -> list[BrokenRule]:
        """Published rules that no longer compile, as of the last `refresh` (one binding's, when named)."""
        broken = self._in_force.broken
        if tool is not None:
            return list(broken.get(_binding(agent, tool), []))
        return [rule for rules in broken.values() for rule in rules]

    def explain(self, caller: Caller) -> list[RuleSentence]:
        """The rules on this caller's bindings, as sentences: for whoami."""
        found: list[RuleSentence] = [
            {"tool": tool, "rule": rule.name, "reads_as": rule.reads_as}
            for tool in caller.tools
            for rule in self.rules_for(caller.entry_persona, tool)
        ]
        return found + [
            {
                "tool": tool,
                "rule": rule.name,
                "reads_as": f"({BROKEN}: every call to {tool} is refused)",
            }
            for tool in caller.tools
            for rule in self.broken(caller.entry_persona, tool)
        ]

    # --- the chokepoint step --------------------------------------------------------------------

    async def check(
        self, caller: Caller, tool: str, args: dict[str, object], trail: Trail | None = None
    ) -> Denial | None:
        """None when every rule on the binding passes, else the denial. `trail`, when given, receives the
        path of the decision for the audit: each context source reached or failed, each rule by name
        passed, not met, or not reached — names and verdicts, never a value."""
        trail = trail if trail is not None else []
        state, key = (
            self._in_force,
            _binding(caller.entry_persona, tool),
        )  # one book for the whole call
        broken = state.broken.get(key)
        rules = state.by_binding.get(key, [])
        if broken:
            trail += [("rule", rule.name, "no longer compiles") for rule in broken]
            trail += [("rule", rule.name, "not reached") for rule in rules]
            return broken[0].denial
        if not rules:
            return None
        needed = frozenset(path for rule in rules for path in rule.attributes)
        try:
            attributes = (
                await self.sources.fetch(needed, caller, args)
                if needed
                else {"subject": {}, "resource": {}}
            )
        except SourceFailed as failure:
            trail += self._sources_trail(needed, failure)
            trail += [("rule", rule.name, "not reached") for rule in rules]
            return Denial(
                Outcome.SOURCE_BLOCKED,
                f"Blocked: {failure}. Rules on this tool need it, so the call was not "
                "made (fail closed).",
            )
        trail += self._sources_trail(needed, None)
        context: RuleContext = {"args": args, **attributes}
        inline = all(rule.cost <= INLINE_COST for rule in rules)
        verdicts = self._all_at_once(state.together.get(key), rules, context) if inline else None
        for index, rule in enumerate(rules):
            if verdicts is not None:
                passed = verdicts[index]
            else:
                try:
                    passed = await self._evaluate(rule, context)
                except Exception as exc:  # noqa: BLE001 - the library's text may hold input values: never passed on
                    overran = isinstance(exc, TimeoutError)
                    trail.append(
                        (
                            "rule",
                            rule.name,
                            "took too long" if overran else "could not be evaluated",
                        )
                    )
                    trail += [("rule", later.name, "not reached") for later in rules[index + 1 :]]
                    why = "took too long to evaluate" if overran else "could not be evaluated"
                    return Denial(
                        Outcome.RULE_ERROR,
                        f'Rule {why}: "{rule.name}". The call was not made.',
                        rule.name,
                    )
            if passed is not True:
                trail.append(("rule", rule.name, "not met"))
                trail += [("rule", later.name, "not reached") for later in rules[index + 1 :]]
                return Denial(
                    Outcome.RULE_DENIED,
                    f'Rule not met: {rule.reads_as} (rule "{rule.name}"). The call was not made.',
                    rule.name,
                )
            trail.append(("rule", rule.name, "passed"))
        return None

    async def _evaluate(self, rule: Rule, context: RuleContext) -> object:
        """One rule's verdict: a cheap rule's on the event loop, a costlier one's in a worker thread
        within `evaluation_seconds` (TimeoutError past it; the thread, which cannot be stopped, is left
        to finish a bounded evaluation, and its verdict is dropped)."""
        if rule.cost <= INLINE_COST:
            return rule.program.execute(context)
        with anyio.fail_after(self.evaluation_seconds):
            return await anyio.to_thread.run_sync(
                rule.program.execute, context, abandon_on_cancel=True
            )

    def _sources_trail(self, needed: frozenset[str], failure: SourceFailed | None) -> Trail:
        """Each context source these attributes come from, in the order they are asked: reached, failed
        (with the source's reason, which never holds its data), or not asked after a failure."""
        names = sorted(
            {self.sources.provider[path] for path in needed if path in self.sources.provider}
            - {IDENTITY}
        )
        found: Trail = []
        for name in names:
            if failure is None:
                found.append(("source", name, "reached"))
            elif found and found[-1][2].startswith("failed") or name > failure.source:
                found.append(("source", name, "not asked"))
            elif name == failure.source:
                found.append(("source", name, f"failed: {failure.reason}"))
            else:
                found.append(("source", name, "reached"))
        return found

    @staticmethod
    def _all_at_once(
        kept: tuple[list[Rule], cel.Program] | None, rules: list[Rule], context: RuleContext
    ) -> list[object] | None:
        """Every rule's verdict from the binding's one program; None when there is none (one rule, rules
        that do not compile together, or a refresh in between) or when any rule fails to evaluate:
        then they run one by one, in order, which finds the rule that failed and says so, exactly as
        if they had never run together."""
        if kept is None or kept[0] is not rules:
            return None
        try:
            verdicts = kept[1].execute(context)
        except Exception:  # noqa: BLE001 - found again rule by rule, whose errors are handled there
            return None
        return verdicts if isinstance(verdicts, list) and len(verdicts) == len(rules) else None

    def _store(self) -> Database:
        if self.db is None:
            raise RuleError("this rule book has no store: drafts and publishing need one")
        return self.db


def manifest_rule_problems(
    manifest: Manifest, input_schemas: dict[str, dict[str, object]]
) -> list[Problem]:
    """The manifest's rules that do not compile (an unknown field or attribute, a wrong operator,
    not a boolean), for `parley tools check` and for `parley serve`, which refuses them."""
    try:
        book = RuleBook(
            manifest,
            None,
            ContextSources(manifest.context_sources, None),
            input_schemas,
            compile_manifest=False,
        )
    except (ValueError, RuleError) as exc:
        return [Problem(("context_sources",), str(exc))]
    found = []
    for number, decl in enumerate(manifest.rules):
        try:
            book.compile(decl, f"manifest:{number}")
        except RuleError as exc:
            found.append(Problem(("rules", number), str(exc), label=""))
    return found
