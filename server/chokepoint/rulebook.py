"""The rule book: every rule in force, by binding, and the step of the chokepoint that applies them.

Rules come from the manifest (published with it) and from the store, where `parley rules draft`
adds a draft and `publish` puts it in force. A published rule is never edited: it is removed and
replaced. A denial names the rule and reads it as a sentence; it never carries the evaluated
values, and neither does the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from server.store import database
from server.chokepoint.context_sources import ContextSources, SourceFailed
from server.identity.resolver import Caller
from server.manifest.loading import Manifest
from server.chokepoint.rules import Binding, Rule, RuleDecl, RuleError, argument_types, compile_rule
from server.store.database import now


@dataclass(frozen=True)
class Denial:
    outcome: str  # rule_denied | source_blocked | rule_error
    message: str
    rule: str | None = None


class RuleBook:
    def __init__(self, manifest: Manifest, db: sqlite_utils.Database | None, sources: ContextSources,
                 input_schemas: dict[str, dict], compile_manifest: bool = True):
        self.manifest = manifest
        self.db = db
        self.sources = sources
        self.input_schemas = input_schemas
        self._revision: int | None = None
        self._by_binding: dict[tuple[str, str], list[Rule]] = {}
        self._checked_at = 0.0
        self.manifest_rules = self._compile_all(
            [(decl, f"manifest:{i}") for i, decl in enumerate(manifest.rules)]) if compile_manifest else []

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

    def _stored(self, state: str) -> list[tuple[int, RuleDecl]]:
        if self.db is None:
            return []
        rows = self.db.execute("SELECT id, body FROM rules WHERE state = ? ORDER BY id", [state]).fetchall()
        return [(row[0], RuleDecl.model_validate_json(row[1])) for row in rows]

    def _refresh(self) -> None:
        revision = database.revision(self.db) if self.db is not None else 0
        if revision == self._revision:
            return
        published = []
        for rule_id, decl in self._stored("published"):
            try:
                published += self.compile(decl, f"store:{rule_id}")
            except RuleError:
                pass  # a stored rule that no longer compiles (the manifest changed) holds no call back
        by_binding: dict[tuple[str, str], list[Rule]] = {}
        for rule in self.manifest_rules + published:
            by_binding.setdefault((rule.binding.agent, rule.binding.tool), []).append(rule)
        self._by_binding = by_binding
        self._revision = revision

    def rules_for(self, agent: str | None, tool: str) -> list[Rule]:
        self._refresh()
        return self._by_binding.get((agent or "", tool), [])

    def explain(self, caller: Caller) -> list[dict]:
        """The rules on this caller's bindings, as sentences: for whoami."""
        return [{"tool": tool, "rule": rule.name, "reads_as": rule.reads_as}
                for tool in caller.tools for rule in self.rules_for(caller.entry_agent, tool)]

    # --- the chokepoint step --------------------------------------------------------------------

    async def check(self, caller: Caller, tool: str, args: dict) -> Denial | None:
        rules = self.rules_for(caller.entry_agent, tool)
        if not rules:
            return None
        needed = frozenset(path for rule in rules for path in rule.attributes)
        try:
            attributes = await self.sources.fetch(needed, caller, args) if needed else {"subject": {}, "resource": {}}
        except SourceFailed as failure:
            return Denial("source_blocked", f"Blocked: {failure}. Rules on this tool need it, so the call was not "
                                            "made (fail closed).")
        context = {"args": args, **attributes}
        for rule in rules:
            try:
                passed = rule.program.execute(context)
            except Exception:  # noqa: BLE001 - the library's text may hold input values: never passed on
                return Denial("rule_error", f'Rule could not be evaluated: "{rule.name}". The call was not made.',
                              rule.name)
            if passed is not True:
                return Denial("rule_denied", f'Rule not met: {rule.reads_as} (rule "{rule.name}"). '
                                             "The call was not made.", rule.name)
        return None

    # --- drafts ----------------------------------------------------------------------------------

    def draft(self, decl: RuleDecl) -> list[int]:
        """Add a rule to the draft, one row per binding, after checking it compiles."""
        self.compile(decl, "draft")
        ids = []
        with self.db.atomic():
            for binding in decl.bindings():
                single = decl.model_copy(update={"binding": {"agent": binding.agent, "tool": binding.tool}})
                ids.append(self.db["rules"].insert({
                    "agent": binding.agent, "tool": binding.tool, "name": decl.name,
                    "body": single.model_dump_json(), "state": "draft", "created_at": now(),
                    "published_at": None, "removed_at": None}).last_pk)
        return ids

    def publish(self, rule_id: int | None = None) -> list[int]:
        drafts = [(i, d) for i, d in self._stored("draft") if rule_id is None or i == rule_id]
        if rule_id is not None and not drafts:
            raise RuleError(f"no draft rule {rule_id}")
        for i, decl in drafts:
            self.compile(decl, f"store:{i}")  # checked again at publish: boolean, attributes that exist
        with self.db.atomic():
            for i, _ in drafts:
                self.db.execute("UPDATE rules SET state = 'published', published_at = ? WHERE id = ? AND state = 'draft'",
                                [now(), i])
        return [i for i, _ in drafts]

    def remove(self, rule_id: int) -> None:
        changed = self.db.execute(
            "UPDATE rules SET state = 'removed', removed_at = ? WHERE id = ? AND state IN ('draft', 'published')",
            [now(), rule_id]).rowcount
        if changed != 1:
            raise RuleError(f"no draft or published rule {rule_id} in the store (manifest rules are removed by "
                            "editing the manifest)")

    def listing(self) -> list[dict]:
        self._refresh()
        rows = [{"id": rule.origin, "state": "published", "binding": str(rule.binding), "name": rule.name,
                 "reads_as": rule.reads_as} for rule in self.manifest_rules]
        if self.db is not None:
            for row in self.db.query("SELECT id, state, body FROM rules WHERE state != 'removed' ORDER BY id"):
                decl = RuleDecl.model_validate_json(row["body"])
                try:
                    reads_as = self.compile(decl, str(row["id"]))[0].reads_as
                except RuleError as exc:
                    reads_as = f"(does not compile: {exc})"
                rows.append({"id": f"store:{row['id']}", "state": row["state"], "binding": str(decl.bindings()[0]),
                             "name": decl.name, "reads_as": reads_as})
        return rows
