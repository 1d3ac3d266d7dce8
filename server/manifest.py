"""The club manifest: scopes, lanes and tools are declared data, validated once at load.

Counts of visible tools per lane follow from the manifest; nothing in code hard-wires them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

LANES = ("guest", "applicant", "member")
DEFAULT_MANIFEST = Path(__file__).resolve().parent.parent / "manifests" / "club.yaml"


class ManifestError(ValueError):
    """A manifest that cannot be served; the message says what to fix."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClubInfo(_Strict):
    name: str
    description: str
    how_to_join: str


class ScopeDecl(_Strict):
    description: str
    agents: bool = True  # False: never granted to an agent token (mandate:write)


class LaneDecl(_Strict):
    ceiling: list[str] = Field(default_factory=list)
    description: str
    how_to_leave: str


class Limits(_Strict):
    guest_requests_per_minute: int = Field(default=120, ge=1)
    token_requests_per_minute: int = Field(default=600, ge=1)


class ToolDecl(_Strict):
    needs: str | None = None
    access: Literal["public", "private"] = "private"


class Manifest(_Strict):
    club: ClubInfo
    scopes: dict[str, ScopeDecl]
    lanes: dict[str, LaneDecl]
    limits: Limits = Limits()
    evidence_kinds: list[str] = Field(default_factory=list)
    tools: dict[str, ToolDecl]

    @property
    def agent_scopes(self) -> frozenset[str]:
        """Scopes a freshly minted agent token receives: all but those withheld from agents."""
        return frozenset(name for name, decl in self.scopes.items() if decl.agents)

    def ceiling(self, lane: str) -> frozenset[str]:
        return frozenset(self.lanes[lane].ceiling)

    def tools_for(self, lane: str, scopes: frozenset[str], verified: bool) -> list[str]:
        """Tool names a caller may see and call: in declaration order, so listings are stable."""
        visible = []
        for name, tool in self.tools.items():
            if tool.access == "private" and not verified:
                continue
            if tool.needs is not None and tool.needs not in scopes:
                continue
            visible.append(name)
        return visible


def _check(manifest: Manifest) -> None:
    problems: list[str] = []
    known = set(manifest.scopes)
    missing_lanes = [lane for lane in LANES if lane not in manifest.lanes]
    if missing_lanes:
        problems.append(f"lanes: missing {', '.join(missing_lanes)} (the three lanes are {', '.join(LANES)})")
    extra_lanes = [lane for lane in manifest.lanes if lane not in LANES]
    if extra_lanes:
        problems.append(f"lanes: unknown lane {', '.join(extra_lanes)} (the three lanes are {', '.join(LANES)})")
    for lane, decl in manifest.lanes.items():
        for scope in decl.ceiling:
            if scope not in known:
                problems.append(f"lanes.{lane}.ceiling: unknown scope '{scope}'")
        for scope, n in Counter(decl.ceiling).items():
            if n > 1:
                problems.append(f"lanes.{lane}.ceiling: duplicate scope '{scope}'")
    if manifest.lanes.get("guest") and manifest.lanes["guest"].ceiling:
        problems.append("lanes.guest.ceiling: the guest lane has no credential and can hold no scope")
    reachable = {scope for decl in manifest.lanes.values() for scope in decl.ceiling}
    for name, tool in manifest.tools.items():
        if tool.needs is None:
            continue
        if tool.needs not in known:
            problems.append(f"tools.{name}.needs: unknown scope '{tool.needs}'")
        elif tool.needs not in reachable:
            problems.append(f"tools.{name}: no lane's ceiling holds '{tool.needs}', so no caller can reach it")
    for kind, n in Counter(manifest.evidence_kinds).items():
        if n > 1:
            problems.append(f"evidence_kinds: duplicate kind '{kind}'")
    if problems:
        raise ManifestError("manifest is invalid:\n  - " + "\n  - ".join(problems))


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses duplicate keys, which plain YAML silently overwrites."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[object, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ManifestError(
                f"duplicate name '{key}' at line {key_node.start_mark.line + 1} "
                f"(first declared at line {seen[key] + 1})"
            )
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_manifest(text: str, source: str = "<manifest>") -> Manifest:
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ManifestError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{source}: the manifest must be a mapping with club, scopes, lanes and tools")
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise ManifestError(f"{source}: {details}") from None
    try:
        _check(manifest)
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from None
    return manifest


def load_manifest(path: Path | str | None = None) -> Manifest:
    path = Path(path) if path else DEFAULT_MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"cannot read manifest {path}: {exc.strerror}") from None
    return parse_manifest(text, source=str(path))
