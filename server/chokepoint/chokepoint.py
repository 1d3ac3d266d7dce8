"""The one place a caller meets a tool: listing, and every call, pass through here.

A tool the caller cannot use is never listed, and calling it answers exactly as a tool that does
not exist. Input is validated before anything runs, and every call is audited.
"""

from __future__ import annotations

import json
import logging
import time

import mcp_types as types
import sqlite_utils
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from server.chokepoint import audit
from server.settings import Settings
from server.identity.resolver import Caller
from server.identity.mandates import SigningKey
from server.chokepoint.context_sources import ContextSources
from server.router.catalogue import Catalogue
from server.chokepoint.rulebook import RuleBook
from server.manifest.loading import Manifest, ManifestError
from server.tools import ToolContext, ToolError, ToolSpec

log = logging.getLogger("parley.chokepoint")

INVALID_PARAMS = -32602


def unknown_tool(name: str) -> MCPError:
    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}")


def _validation_message(name: str, exc: ValidationError) -> str:
    """Say which field is wrong and why, never echoing the value that was sent."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return f"Invalid arguments for {name}: " + "; ".join(parts) + ". Nothing was changed."


def _result(payload: dict) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
        structured_content=payload,
    )


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class Chokepoint:
    def __init__(
        self,
        db: sqlite_utils.Database,
        key: SigningKey,
        manifest: Manifest,
        settings: Settings,
        registry: dict[str, ToolSpec],
        vocabularies: dict | None = None,
        escalations=None,
        sources=None,
    ):
        missing = [name for name in manifest.tools if name not in registry]
        if missing:
            raise ManifestError(f"the manifest declares tools this server does not implement: {', '.join(missing)}")
        self.db = db
        self.key = key
        self.manifest = manifest
        self.settings = settings
        self.specs = {name: registry[name] for name in manifest.tools}
        self.definitions = {name: self._definition(spec) for name, spec in self.specs.items()}
        self.vocabularies = vocabularies or {}
        self.escalations = escalations
        schemas = {name: definition.input_schema for name, definition in self.definitions.items()}
        self.rulebook = RuleBook(manifest, db, sources or ContextSources(manifest.context_sources, db), schemas)
        self._catalogues: dict[tuple[str, ...], Catalogue] = {}

    def catalogue_for(self, names: tuple[str, ...]) -> Catalogue:
        """The router's catalogue of exactly these tools: only what the caller can see."""
        catalogue = self._catalogues.get(names)
        if catalogue is None:
            catalogue = Catalogue.from_declarations(
                [self.definitions[name].model_dump(mode="json", by_alias=True, exclude_none=True) for name in names]
            )
            if len(self._catalogues) > 256:
                self._catalogues.clear()
            self._catalogues[names] = catalogue
        return catalogue

    @staticmethod
    def _definition(spec: ToolSpec) -> types.Tool:
        return types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema(),
            output_schema=spec.output_schema(),
            annotations=types.ToolAnnotations(read_only_hint=not spec.writes),
        )

    def listing(self, caller: Caller) -> list[types.Tool]:
        return [self.definitions[name] for name in caller.tools]

    async def call(self, caller: Caller, name: str, arguments: dict | None) -> types.CallToolResult:
        """Visibility, then input validation, then the binding's rules, then the tool; always audited."""
        started = time.perf_counter()
        outcome, rule = "internal_error", None
        try:
            if name not in caller.tools:
                outcome = "unknown_tool"
                raise unknown_tool(name)
            spec = self.specs[name]
            try:
                args = spec.input_model.model_validate(arguments or {})
            except ValidationError as exc:
                outcome = "invalid_input"
                return _error(_validation_message(name, exc))
            if self.rulebook is not None:
                denial = await self.rulebook.check(caller, name, args.model_dump(mode="json"))
                if denial is not None:
                    outcome, rule = denial.outcome, denial.rule
                    return _error(denial.message)
            ctx = ToolContext(self.db, self.key, self.manifest, self.settings, caller,
                              self.vocabularies, self.catalogue_for, self.escalations, self.rulebook)
            try:
                output = spec.handler(ctx, args)
            except ToolError as exc:
                outcome = "tool_error"
                return _error(str(exc))
            outcome = "ok"
            return _result(output.model_dump(mode="json"))
        except MCPError:
            raise
        except Exception:
            log.exception("tool %s failed for lane %s", name[:64], caller.lane)
            return _error("Internal error while running the tool; nothing is known to have changed.")
        finally:
            audit.record(self.db, caller, name, outcome, (time.perf_counter() - started) * 1000, rule)
