"""The one place a caller meets a tool: listing, and every call, pass through here.

A tool the caller cannot use is never listed, and calling it answers exactly as a tool that does
not exist. Input is validated before anything runs, the binding's rules run next, and every call
is audited. A tool that may wait on something slow runs in a worker thread, never on the loop.
"""

from __future__ import annotations

import json
import logging
import time

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from server.access import Caller
from server.access.answers import answers_for
from server.asking import Escalations
from server.chokepoint import audit
from server.chokepoint.context_sources import ContextSources
from server.chokepoint.outcomes import Outcome
from server.chokepoint.rulebook import RuleBook, Trail
from server.errors import ParleyError
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.metrics import tool_calls_by
from server.router.catalogue import Catalogue
from server.router.vocabulary import Vocabulary
from server.store.database import Database, revision
from server.tools import ToolSpec, specs_for
from server.tools.facade import Club
from server.tools.registry import Args

log = logging.getLogger("parley.chokepoint")

INVALID_PARAMS = -32602
MAX_REPORTED = 5  # validation errors named in one message
NAME_ROOM = 120  # characters of one field's path in it


def unknown_tool(name: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {audit.safe_name(name)}")


def _validation_message(name: str, exc: ValidationError) -> str:
    """Say which field is wrong and why, never echoing the value that was sent; a field name the
    caller made up comes back only as safe, bounded text."""
    errors = exc.errors(include_url=False, include_input=False)
    parts = []
    for err in errors[:MAX_REPORTED]:
        where = ".".join(audit.safe_name(str(p)) for p in err["loc"])[:NAME_ROOM] or "arguments"
        parts.append(f"{where}: {err['msg']}")
    more = f" (and {len(errors) - MAX_REPORTED} more)" if len(errors) > MAX_REPORTED else ""
    return f"Invalid arguments for {name}: " + "; ".join(parts) + more + ". Nothing was changed."


def _validated(spec: ToolSpec, arguments: dict[str, object] | None) -> Args:
    """Arguments exactly as the published inputSchema allows: strict JSON validation, so "7" is not
    an integer and true is not a number, as the schema says."""
    return spec.input_model.model_validate_json(
        json.dumps(arguments) if arguments else "{}", strict=True
    )


def _result(payload: dict[str, object]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class Catalogues:
    """The router's catalogue of exactly the tools a caller sees, built once per distinct set."""

    def __init__(self, definitions: dict[str, types.Tool]):
        self.definitions = definitions
        self._built: dict[tuple[str, ...], Catalogue] = {}

    def __call__(self, names: tuple[str, ...]) -> Catalogue:
        catalogue = self._built.get(names)
        if catalogue is None:
            catalogue = Catalogue.from_declarations(
                [
                    self.definitions[name].model_dump(mode="json", by_alias=True, exclude_none=True)
                    for name in names
                ]
            )
            if len(self._built) > 256:
                self._built.clear()
            self._built[names] = catalogue
        return catalogue


class Chokepoint:
    def __init__(
        self,
        db: Database,
        key: SigningKey,
        manifest: Manifest,
        vocabularies: dict[str, Vocabulary] | None = None,
        asking: Escalations | None = None,
        sources: ContextSources | None = None,
    ):
        self.db = db
        self.key = key
        self.manifest = manifest
        self.specs: dict[str, ToolSpec] = specs_for(manifest)
        self.definitions = {name: spec.definition() for name, spec in self.specs.items()}
        self.vocabularies = vocabularies or {}
        self.asking = asking
        schemas = {name: definition.input_schema for name, definition in self.definitions.items()}
        self.rulebook = RuleBook(
            manifest, db, sources or ContextSources(manifest.context_sources, db), schemas
        )
        self.catalogue_for = Catalogues(self.definitions)
        # A store across the network (PostgreSQL): every handler and the audit row wait on it, so
        # they run in worker threads; on the embedded store only tools marked blocking do.
        self.offload = getattr(db, "over_network", False)  # None: listings only (tests)
        self.audit = audit.AuditTrail(db, self.offload)

    def _answered(self, caller: Caller, name: str) -> types.CallToolResult | None:
        """A pure tool's earlier answer to this very identity (the resolver hands out one object per
        credential and revision, and a new one when anything about it changes) under the same rules;
        guests share one."""
        return answers_for(caller).results.get((name, self.rulebook.in_force))

    def _remember(self, caller: Caller, name: str, result: types.CallToolResult) -> None:
        if caller.revision is not None and caller.revision != self.rulebook.in_force:
            return  # resolved at another revision than the rules were read at: answer afresh next time
        answers_for(caller).keep(name, self.rulebook.in_force, result)

    def shaped(
        self, caller: Caller, name: str, result: types.CallToolResult, version: str
    ) -> dict[str, object] | None:
        """The protocol's wire form of `result` at `version`, if `result` is a pure tool's remembered
        answer that the SDK has already shaped once: the very object, so never another answer's."""
        kept = answers_for(caller).wire.get((name, version))
        return kept[1] if kept is not None and kept[0] is result else None

    def keep_shape(
        self,
        caller: Caller,
        name: str,
        result: types.CallToolResult,
        version: str,
        wire: dict[str, object],
    ) -> None:
        """Keep the SDK's wire form of a remembered answer (and of nothing else) beside it."""
        if self._answered(caller, name) is result:
            answers_for(caller).keep_wire(name, version, result, wire)

    def listing(self, caller: Caller) -> list[types.Tool]:
        return [self.definitions[name] for name in caller.tools]

    async def call(
        self,
        caller: Caller,
        name: str,
        arguments: dict[str, object] | None,
        held: audit.Held | None = None,
    ) -> types.CallToolResult:
        """Visibility, then input validation, then the binding's rules, then the tool; always audited
        (the row kept in `held`, the hold of the request that carried the call, while it is open)."""
        started = time.perf_counter()
        outcome, rule = Outcome.INTERNAL_ERROR, None
        trail: Trail | None = None  # the rules and context sources the call met, for the audit
        try:
            if name not in caller.tools:
                outcome = Outcome.UNKNOWN_TOOL
                raise unknown_tool(name)
            spec = self.specs[name]
            try:
                args = _validated(spec, arguments)
            except ValidationError as exc:
                outcome = Outcome.INVALID_INPUT
                return _error(_validation_message(name, exc))
            # the rules in force for this request: the revision its credential was resolved at, read once
            # (read again, and a new rule compiled, in a worker thread: never on the event loop)
            known = caller.revision
            if known is None and not self.offload:
                known = revision(self.db)
            if not self.rulebook.current_at(known):
                await anyio.to_thread.run_sync(self.rulebook.refresh, known)
            if self.rulebook.guards(caller.entry_persona, name):
                trail = []
                denial = await self.rulebook.check(
                    caller, name, args.model_dump(mode="json"), trail
                )
                if denial is not None:
                    outcome, rule = denial.outcome, denial.rule
                    return _error(denial.message)
            if spec.pure:
                again = self._answered(caller, name)
                if again is not None:
                    outcome = Outcome.OK
                    return again
            ctx = spec.context(
                Club(self.db, self.key, self.manifest, self.asking),
                caller,
                vocabularies=self.vocabularies,
                catalogue_for=self.catalogue_for,
                explain_rules=self.rulebook.explain,
            )
            try:
                if spec.awaits:
                    output = await spec.handler(ctx, args)  # type: ignore[misc]
                elif spec.blocking or self.offload:
                    output = await anyio.to_thread.run_sync(spec.handler, ctx, args)
                else:
                    output = spec.handler(ctx, args)
            except ParleyError as exc:
                outcome = Outcome.TOOL_ERROR
                return _error(str(exc))
            outcome = Outcome.OK
            result = _result(output.model_dump(mode="json"))
            if spec.pure:
                self._remember(caller, name, result)
            return result
        except MCPError:
            raise
        except Exception:
            log.exception("tool %s failed for lane %s", audit.safe_name(name), caller.lane)
            return _error(
                "Internal error while running the tool; nothing is known to have changed."
            )
        finally:
            seconds = time.perf_counter() - started
            tool_calls_by(name if name in self.specs else "unknown", outcome).observe(seconds)
            await self.audit.record(caller, name, outcome, seconds * 1000, rule, trail, held)
