"""The club manifest: scopes, lanes and tools are declared data, validated once at load.

Counts of visible tools per lane follow from the manifest; nothing in code hard-wires them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from server.chokepoint.context_sources import SourceDecl
from server.chokepoint.rules import RuleDecl

LANES = ("guest", "applicant", "member")
DEFAULT_MANIFEST = Path(__file__).resolve().parent.parent.parent / "manifests" / "club.yaml"


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


class KnowledgeDecl(_Strict):
    title: str
    file: str  # relative to the manifest's folder
    description: str = ""


class AgentDecl(_Strict):
    """One agent of the club: nothing is inherited between agents, by design."""

    name: str
    instructions: str
    tools: list[str] = Field(default_factory=list)
    knowledge: list[str] = Field(default_factory=list)
    links: dict[str, str] | list[str] = Field(default_factory=dict)  # inline, or names from the top-level links

    def resolved_links(self, registry: dict[str, str]) -> dict[str, str]:
        if isinstance(self.links, list):
            return {name: registry[name] for name in self.links if name in registry}
        return dict(self.links)

    def full_instructions(self, registry: dict[str, str] | None = None) -> str:
        """The instructions, with every declared link listed in them."""
        text = self.instructions.strip()
        links = self.resolved_links(registry or {})
        if links:
            text += "\nLinks you may give:\n" + "\n".join(f"- {name}: {url}" for name, url in sorted(links.items()))
        return text


class EntryRow(_Strict):
    agent: str
    authenticated: bool | None = None
    claims: dict[str, str | int | float | bool | list[str | int | float | bool]] | None = None

    @property
    def unconditional(self) -> bool:
        return self.authenticated is None and not self.claims

    def matches(self, authenticated: bool, claims: dict[str, str]) -> bool:
        if self.authenticated is not None and self.authenticated != authenticated:
            return False
        for key, wanted in (self.claims or {}).items():
            options = wanted if isinstance(wanted, list) else [wanted]
            if key not in claims or claims[key] not in {as_text(option) for option in options}:
                return False
        return True


def as_text(value: object) -> str:
    """Claims compare as text: role: 2 matches "2", and true matches "true"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


DEFAULT_AGENT = "main"


class Manifest(_Strict):
    club: ClubInfo
    scopes: dict[str, ScopeDecl]
    lanes: dict[str, LaneDecl]
    limits: Limits = Limits()
    evidence_kinds: list[str] = Field(default_factory=list)
    tools: dict[str, ToolDecl]
    knowledge: dict[str, KnowledgeDecl] = Field(default_factory=dict)
    links: dict[str, str] = Field(default_factory=dict)
    context_sources: dict[str, SourceDecl] = Field(default_factory=dict)
    rules: list[RuleDecl] = Field(default_factory=list)
    agents: dict[str, AgentDecl] = Field(default_factory=dict)
    entry: list[EntryRow] = Field(default_factory=list)
    source_dir: str = ""

    def choose_agent(self, authenticated: bool, claims: dict[str, str]) -> str:
        """The entry table: the first row whose conditions all hold wins, and that is the whole rule."""
        for row in self.entry:
            if row.matches(authenticated, claims):
                return row.agent
        raise ManifestError("no entry row matched; the last row must match everyone")

    @property
    def agent_scopes(self) -> frozenset[str]:
        """Scopes a freshly minted agent token receives: all but those withheld from agents."""
        return frozenset(name for name, decl in self.scopes.items() if decl.agents)

    def ceiling(self, lane: str) -> frozenset[str]:
        return frozenset(self.lanes[lane].ceiling)

    def tools_for(self, lane: str, scopes: frozenset[str], verified: bool, agent: str | None = None) -> list[str]:
        """Tool names a caller may see and call: in declaration order, so listings are stable.

        The chosen agent's `tools` narrow further; `access: private` holds whatever agent was chosen."""
        allowed = set(self.agents[agent].tools) if agent is not None and agent in self.agents else None
        visible = []
        for name, tool in self.tools.items():
            if allowed is not None and name not in allowed:
                continue
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
    for name, agent in manifest.agents.items():
        for tool in agent.tools:
            if tool not in manifest.tools:
                problems.append(f"agents.{name}.tools: unknown tool '{tool}'")
        for base in agent.knowledge:
            if base not in manifest.knowledge:
                problems.append(f"agents.{name}.knowledge: unknown knowledge base '{base}'")
        if isinstance(agent.links, list):
            for link in agent.links:
                if link not in manifest.links:
                    problems.append(f"agents.{name}.links: unknown link '{link}'")
    if not manifest.entry:
        problems.append("entry: the entry table needs at least one row")
    for number, row in enumerate(manifest.entry, start=1):
        if row.agent not in manifest.agents:
            problems.append(f"entry row {number}: unknown agent '{row.agent}'")
        if row.unconditional and number < len(manifest.entry):
            problems.append(
                f"entry row {number + 1}: unreachable, row {number} has no conditions and matches everyone first")
    if manifest.entry and not manifest.entry[-1].unconditional:
        problems.append(f"entry row {len(manifest.entry)}: the last row must have no conditions, "
                        "or a caller who matches no row has no agent to talk to")
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


def parse_manifest(text: str, source: str = "<manifest>", source_dir: str = "") -> Manifest:
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except ManifestError as exc:
        raise ManifestError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ManifestError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{source}: the manifest must be a mapping with club, scopes, lanes and tools")
    if "agent" in data:  # the short form of agents: {main: …}
        if "agents" in data:
            raise ManifestError(f"{source}: give either agent: (one agent) or agents: (several), not both")
        data = dict(data)
        data["agents"] = {DEFAULT_AGENT: data.pop("agent")}
        data.setdefault("entry", [{"agent": DEFAULT_AGENT}])
    if "agents" not in data:  # a manifest without agents serves one agent with every tool
        data = {**data, "agents": {DEFAULT_AGENT: {"name": (data.get("club") or {}).get("name", "agent")
                                                   if isinstance(data.get("club"), dict) else "agent",
                                                   "instructions": "", "tools": list((data.get("tools") or {}))}}}
        data.setdefault("entry", [{"agent": DEFAULT_AGENT}])
    data = {**data, "source_dir": source_dir}
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
    manifest = parse_manifest(text, source=str(path), source_dir=str(path.parent))
    for name, base in manifest.knowledge.items():
        if not (path.parent / base.file).is_file():
            raise ManifestError(f"{path}: knowledge.{name}.file: no file {base.file} beside the manifest")
    return manifest
