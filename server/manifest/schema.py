"""Every declaration a manifest can hold, as strict pydantic models, and the errors it can have.

A leaf of the package: runtime modules (access, chokepoint, tools) read these models; nothing here
reads the store or the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from server.errors import ParleyError

LANES = ("guest", "applicant", "member")
DEFAULT_AGENT = "main"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a manifest: where (a path of keys and indexes), what, and its line once known."""

    path: tuple[str | int, ...]
    message: str
    line: int | None = None
    label: str | None = None  # how to name the place when a dotted path reads badly ("entry row 3")

    def __str__(self) -> str:
        where = self.label if self.label is not None else ".".join(str(p) for p in self.path)
        return f"{where}: {self.message}" if where else self.message


class ManifestError(ParleyError):
    """A manifest that cannot be served; `problems` say where and what, the message lists them."""

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        listed = "\n  - ".join(str(p) + (f" (line {p.line})" if p.line else "") for p in problems)
        super().__init__(
            f"{source}: manifest is invalid:\n  - {listed}"
            if len(problems) > 1
            else f"{source}: {listed}"
        )


Kind = Literal["text", "number", "boolean"]

# What the built-in source knows, by the path a rule reads it at.
CLUB_ATTRIBUTES: dict[str, Kind] = {
    "subject.id": "text",
    "subject.status": "text",
    "subject.steward": "boolean",
    "subject.lane": "text",
    "subject.admitted_days": "number",
    "subject.asks_today": "number",
    "subject.evidence_count": "number",
    "resource.owner": "text",
    "resource.member_status": "text",
}


class SourceDecl(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    builtin: Literal["club"] | None = None
    url: str | None = Field(
        default=None, description="A URL template: {subject.id} and {args.<name>} are filled in."
    )
    timeout: float = Field(default=1.0, gt=0, le=30)
    about: Literal["subject", "resource"] = "subject"
    attributes: dict[str, Kind] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_kind(self) -> SourceDecl:
        if (self.builtin is None) == (self.url is None):
            raise ValueError("a context source is either builtin: club or an HTTP source with url:")
        if self.url is not None and not self.attributes:
            raise ValueError(
                "an HTTP context source declares the attributes it provides, with their types"
            )
        return self

    def provides(self) -> dict[str, Kind]:
        if self.builtin == "club":
            return dict(CLUB_ATTRIBUTES)
        return {f"{self.about}.{name}": kind for name, kind in self.attributes.items()}


class Binding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str
    tool: str

    def __str__(self) -> str:
        return f"{self.agent} · parley · {self.tool}"


class Condition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str
    op: str
    value: object = (
        None  # YAML or a form, not yet typed: a rule narrows it by the field it compares
    )
    attribute: str | None = Field(
        default=None, description="Compare with this trusted attribute instead of a value."
    )


class RuleDecl(BaseModel):
    """A rule as written: in the manifest, or drafted with `parley rules draft`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    binding: dict[str, str | list[str]]
    match: Literal["all", "any"] = "all"
    conditions: list[Condition] = Field(default_factory=list)
    cel: str | None = None

    @field_validator("binding")
    @classmethod
    def _binding(cls, value: dict[str, str | list[str]]) -> dict[str, str | list[str]]:
        if set(value) != {"agent", "tool"}:
            raise ValueError("a binding names exactly agent and tool (the server is this one)")
        return value

    def bindings(self) -> list[Binding]:
        agents = self.binding["agent"]
        tools = self.binding["tool"]
        return [
            Binding(agent=a, tool=t)
            for a in (agents if isinstance(agents, list) else [agents])
            for t in (tools if isinstance(tools, list) else [tools])
        ]


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
    links: dict[str, str] | list[str] = Field(
        default_factory=dict
    )  # inline, or names from the top-level links

    def resolved_links(self, registry: dict[str, str]) -> dict[str, str]:
        if isinstance(self.links, list):
            return {name: registry[name] for name in self.links if name in registry}
        return dict(self.links)

    def full_instructions(self, registry: dict[str, str] | None = None, base_url: str = "") -> str:
        """The instructions, with every declared link listed in them; a link written as a path
        ("/console/applicants") is given on the URL the club is served at (`base_url`)."""
        text = self.instructions.strip()
        links = self.resolved_links(registry or {})
        if links:
            text += "\nLinks you may give:\n" + "\n".join(
                f"- {name}: {base_url + url if url.startswith('/') else url}"
                for name, url in sorted(links.items())
            )
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

    @property
    def agent_scopes(self) -> frozenset[str]:
        """Scopes a freshly minted agent token receives: all but those withheld from agents."""
        return frozenset(name for name, decl in self.scopes.items() if decl.agents)

    def ceiling(self, lane: str) -> frozenset[str]:
        return frozenset(self.lanes[lane].ceiling)
