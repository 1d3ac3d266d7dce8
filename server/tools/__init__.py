"""The tool registry: each tool is a typed function whose pydantic models are its schema.

A tool's docstring is its description for the calling agent. The manifest, not this registry,
says which scope a tool needs; the registry only knows what each tool does.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_type_hints

import sqlite_utils
from pydantic import BaseModel, ConfigDict

from server.settings import Settings
from server.identity.resolver import Caller
from server.identity.mandates import SigningKey
from server.manifest.loading import Manifest


class Args(BaseModel):
    """Tool input: unknown fields are refused, text is trimmed."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(Args):
    pass


class ToolError(Exception):
    """A refusal the calling agent can act on; the message says what to do next."""


@dataclass(frozen=True)
class ToolContext:
    db: sqlite_utils.Database
    key: SigningKey
    manifest: Manifest
    settings: Settings
    caller: Caller
    vocabularies: dict = field(default_factory=dict)  # language → router Vocabulary
    catalogue_for: Callable[[tuple[str, ...]], Any] = lambda names: None  # visible names → router Catalogue
    escalations: Any = None  # server.escalations.Escalations: asking members, filing decisions
    rulebook: Any = None  # server.rulebook.RuleBook: the rules in force, for explanations


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_model: type[Args]
    output_model: type[Output]
    handler: Callable[[ToolContext, Any], Output]
    writes: bool

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema()


REGISTRY: dict[str, ToolSpec] = {}


def tool(*, writes: bool = False) -> Callable[[Callable], Callable]:
    """Register a function `(ctx, args) -> Output` as a tool named after the function."""

    def register(func: Callable) -> Callable:
        hints = get_type_hints(func)
        params = list(inspect.signature(func).parameters)
        input_model = hints[params[1]]
        output_model = hints["return"]
        name = func.__name__
        if name in REGISTRY:
            raise RuntimeError(f"tool {name} registered twice")
        REGISTRY[name] = ToolSpec(
            name=name,
            description=inspect.cleandoc(func.__doc__ or ""),
            input_model=input_model,
            output_model=output_model,
            handler=func,
            writes=writes,
        )
        return func

    return register


def load_all() -> dict[str, ToolSpec]:
    """Import every tool module so each registers itself."""
    from server.tools import (  # noqa: F401
        asking, briefing, club, directory, evidence, inbox, planning, profile, refunds,
    )

    return REGISTRY
