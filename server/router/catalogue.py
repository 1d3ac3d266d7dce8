"""The catalogue the router reads: built from tools' own declarations (name, description, JSON schema).

A tool's name gives its verb and nouns (get_order: get, order); each parameter's name, type and
schema say what kind of value it takes, so values are told apart by what they are, whatever the
word order of the turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.router import lexicon as lx

ID_NAMES = ("id", "number", "code", "ref", "reference")
AMOUNT_NAMES = frozenset({"amount", "price", "total", "value", "sum", "cost", "fee", "valor", "quantia"})
DESTINATION_NAMES = frozenset({"email", "to", "recipient", "destination", "address", "url", "webhook", "target"})
TIME_NAMES = frozenset({"date", "time", "when", "at", "day", "deadline", "start", "end"})
NAME_NAMES = frozenset({"handle", "member", "user", "username", "person", "customer", "name"})
TEXT_NAMES = frozenset({"query", "question", "text", "topic", "title", "detail", "statement", "turn", "note",
                        "message", "body", "comment", "reason", "kind", "subject"})
COUNT_NAMES = frozenset({"limit", "count", "quantity", "qty", "n", "size"})


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # identifier, amount, destination, time, name, text, choice, flag, count
    required: bool
    noun: str | None = None
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class CatalogueTool:
    name: str
    action: str  # canonical action of its verb
    nouns: tuple[str, ...]
    params: tuple[Param, ...]
    writes: bool
    description: str = ""
    adjectives: tuple[str, ...] = field(default=())

    @property
    def display(self) -> str:
        return self.name.replace("_", " ")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def _kind(name: str, schema: dict) -> tuple[str, str | None]:
    parts = name.lower().split("_")
    last = parts[-1]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if "anyOf" in schema:
        kinds = [s.get("type") for s in schema["anyOf"] if isinstance(s, dict) and s.get("type") != "null"]
        kind = kinds[0] if kinds else kind
    if schema.get("enum"):
        return "choice", None
    if kind == "boolean":
        return "flag", None
    if last in ID_NAMES and len(parts) > 1:
        return "identifier", singular(parts[-2])
    if name.lower() == "id":
        return "identifier", None
    if last in AMOUNT_NAMES:
        return "amount", None
    if last in DESTINATION_NAMES or schema.get("format") in ("email", "uri"):
        return "destination", None
    if last in TIME_NAMES or schema.get("format") in ("date", "date-time", "time"):
        return "time", None
    if last in NAME_NAMES:
        return "name", None
    if kind in ("number", "integer") and last in COUNT_NAMES:
        return "count", None
    if kind in ("number", "integer"):
        return "amount", None
    return "text", None


def tool_from_declaration(declaration: dict) -> CatalogueTool:
    """From an MCP tool declaration: {name, description, inputSchema, annotations}."""
    name = declaration["name"]
    schema = declaration.get("inputSchema") or declaration.get("input_schema") or {}
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    words = name.lower().split("_")
    if words[0] in lx.TOOL_VERBS:
        action = lx.TOOL_VERBS[words[0]]
        rest = words[1:]
        if words[0] == "hand" and rest[:1] == ["off"]:
            rest = rest[1:]
    else:
        action, rest = "get", words
    # the noun is the first word after the verb; later words qualify it (share_event_public);
    # a name that is only a verb (apply, ask, plan, hand_off) has no noun of its own
    rest = [w for w in rest if w not in ("my", "the", "a", "off")]
    nouns = (singular(rest[0]),) if rest else ()
    if not nouns and words[0] not in lx.TOOL_VERBS:
        nouns = (singular(name.lower()),)
    params = []
    for pname in sorted(properties):
        pschema = properties[pname] if isinstance(properties[pname], dict) else {}
        kind, noun = _kind(pname, pschema)
        enum = tuple(str(v) for v in pschema.get("enum") or ())
        params.append(Param(pname, kind, pname in required, noun, enum))
    annotations = declaration.get("annotations") or {}
    read_only = annotations.get("readOnlyHint", annotations.get("read_only_hint"))
    writes = (lx.ACTIONS.get(action) != "read") if read_only is None else not read_only
    return CatalogueTool(
        name=name,
        action=action,
        nouns=nouns,
        params=tuple(params),
        writes=writes,
        description=declaration.get("description") or "",
        adjectives=tuple(rest[1:]),
    )


@dataclass(frozen=True)
class Catalogue:
    tools: tuple[CatalogueTool, ...]

    @classmethod
    def from_declarations(cls, declarations: list[dict]) -> Catalogue:
        tools = sorted((tool_from_declaration(d) for d in declarations), key=lambda t: t.name)
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise ValueError("a catalogue cannot hold two tools of the same name")
        return cls(tuple(tools))

    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def nouns(self) -> set[str]:
        found = set()
        for tool in self.tools:
            found.update(tool.nouns)
            found.update(p.noun for p in tool.params if p.noun)
        return found
