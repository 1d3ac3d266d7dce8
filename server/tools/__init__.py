"""The typed tools, one module a group; `registry` holds what they share (Args, Output, the
contexts a tool receives, the @tool decorator); `facade` is all a tool may use of the club: reads and
writes confined to its caller, never the database or a key. Imports: asking, access, identity, keys,
manifest, router, store, errors.

Every module of this package is imported here, so a new tool is one file (or one function in an
existing file) plus its manifest entry: nothing lists the modules by hand.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import mcp_types as types

from server.manifest.schema import Manifest, ManifestError, Problem
from server.tools.registry import (
    MAX_ID,
    REGISTRY,
    Args,
    NoArgs,
    Output,
    PureContext,
    ToolContext,
    ToolError,
    ToolSpec,
    WriteContext,
    tool,
)


def _tool_modules() -> tuple[ModuleType, ...]:
    """Every module of this package but the registry and the facade, imported so each registers its tools."""
    shared = {"registry", "facade"}
    names = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name not in shared)
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)


MODULES = _tool_modules()
__all__ = [
    "MAX_ID",
    "MODULES",
    "REGISTRY",
    "Args",
    "NoArgs",
    "Output",
    "PureContext",
    "ToolContext",
    "ToolError",
    "ToolSpec",
    "WriteContext",
    "definitions",
    "input_schemas",
    "load_all",
    "specs_for",
    "tool",
]


def load_all() -> dict[str, ToolSpec]:
    """Every tool this server implements, by name (each module registered its tools on import)."""
    return REGISTRY


def specs_for(manifest: Manifest) -> dict[str, ToolSpec]:
    """The implementations of the manifest's tools; a tool it declares that none implements is refused."""
    registry = load_all()
    missing = [name for name in manifest.tools if name not in registry]
    if missing:
        raise ManifestError(
            "manifest",
            [
                Problem(
                    ("tools",),
                    "the manifest declares tools this server does not "
                    f"implement: {', '.join(missing)}",
                )
            ],
        )
    return {name: registry[name] for name in manifest.tools}


def definitions(manifest: Manifest) -> dict[str, types.Tool]:
    """MCP tool definitions of the manifest's tools, in declaration order."""
    return {name: spec.definition() for name, spec in specs_for(manifest).items()}


def input_schemas(manifest: Manifest) -> dict[str, dict[str, object]]:  # JSON Schema documents
    return {name: spec.input_schema() for name, spec in specs_for(manifest).items()}
