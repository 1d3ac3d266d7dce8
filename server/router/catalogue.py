"""The catalogue the router reads: built from tools' own declarations (name, description, JSON schema).

A tool's name gives its verb, the thing it is about and that thing's qualifiers (names.py);
each parameter's name, type and schema say what kind of value it takes, so values are told
apart by what they are, whatever the word order of the turn.

A parameter may declare the values the application knows for it: `enum`, or `x-known-values`
(a list) beside it in the schema. Such a parameter is bound only to a value the turn names from
that list (see binding.py; `plan(..., context={"known_values": {...}})` adds values at plan time).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock
from typing import TypeAlias

from server.router import lexicon as lx
from server.router.dates import date_format
from server.router.descriptions import (
    GENERIC,
    described_words,
    example_words,
    examples_as_written,
    listed_values,
    percent_form,
    purpose_of,
)
from server.router.formats import value_formats
from server.router.names import name_words, parse_name, singular, split_words
from server.router.tokens import Token

# A tool's declaration as JSON data (MCP's tools/list): name, description, inputSchema
JSONValue: TypeAlias = "str | int | float | bool | None | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"

ID_NAMES = ("id", "number", "no", "num", "nr", "code", "ref", "reference")
AMOUNT_NAMES = frozenset(
    {"amount", "price", "total", "value", "sum", "cost", "fee", "valor", "quantia"}
)
DESTINATION_NAMES = frozenset(
    {"email", "to", "recipient", "destination", "address", "url", "webhook", "target"}
)
TIME_NAMES = frozenset({"date", "time", "when", "at", "day", "deadline", "start", "end"})
NAME_NAMES = frozenset({"handle", "member", "user", "username", "person", "customer", "name"})
# Parameters that take the turn's free text (what is left once the verb and the tool's nouns are read)
TEXT_NAMES = frozenset(
    {
        "query",
        "question",
        "text",
        "topic",
        "detail",
        "statement",
        "turn",
        "note",
        "message",
        "body",
        "comment",
        "reason",
        "kind",
        "subject",
        "prompt",
        "keyword",
        "keywords",
    }
)
COUNT_NAMES = frozenset({"limit", "count", "quantity", "qty", "n", "size"})


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # identifier, amount, destination, time, name, text, choice, flag, count
    required: bool
    noun: str | None = None
    enum: tuple[str, ...] = ()
    words: tuple[str, ...] = ()  # the name's words, singular (initial_velocity: initial, velocity)
    type: str = "string"  # the JSON type: string, number, integer, boolean, array, object
    items: str = "string"  # for an array, its items' type
    known: tuple[str, ...] = ()  # x-known-values: values the application knows for it
    described: frozenset[str] = frozenset()  # the content words of its description, singular
    listed: tuple[
        str, ...
    ] = ()  # the values its description quotes as the ones it takes ('now', 'weekend')
    percent: str | None = (
        None  # how its description says a percent is given: "fraction" (5% is 0.05) or "percent"
    )
    examples: frozenset[str] = (
        frozenset()
    )  # the words of the examples its description gives ("e.g. vegan")
    example_values: tuple[str, ...] = ()  # its one-word examples as written ("e.g. 'Piano'": Piano)
    date_format: tuple[tuple[str, ...], str] | None = (
        None  # the order and separator its description asks dates in (dates.py)
    )
    formats: tuple[
        str, ...
    ] = ()  # the shapes its description asks values in (formats.py); () for any


@dataclass(frozen=True)
class CatalogueTool:
    name: str
    action: str  # canonical action of its verb
    nouns: tuple[str, ...]
    params: tuple[Param, ...]
    writes: bool
    description: str = ""
    adjectives: tuple[str, ...] = field(
        default=()
    )  # the name's qualifiers (public in share_event_public)
    namespace: tuple[str, ...] = ()  # words before the last dot (soccer in soccer.get_player_stats)
    verb: str = ""  # the word of its name that says its action (estimate in estimate_fund_return)
    purpose: str | None = (
        None  # the thing its description says it acts on ("Discover therapists in …")
    )

    # What the binder and the planner read of the tool on every turn, derived once when the tool
    # is built (__post_init__): its things (nouns and qualifiers), its own words (those and its
    # namespace), its name's words, its parameters' words, each parameter's own words (in the order
    # of params), its parameters' kinds (Binder.free), the things its identifiers name (derived
    # tools); whether a choice or a list has an enum, a parameter knows or lists values, one gives
    # one-word examples. Tuples of text, not sets: a catalogue lives long, and the collector keeps
    # walking every set and dict it holds
    things: tuple[str, ...] = field(default=(), compare=False, repr=False)
    own: tuple[str, ...] = field(default=(), compare=False, repr=False)
    name_words: tuple[str, ...] = field(default=(), compare=False, repr=False)
    param_words: tuple[str, ...] = field(default=(), compare=False, repr=False)
    unbound_words: tuple[tuple[str, ...], ...] = field(default=(), compare=False, repr=False)
    kinds: tuple[str, ...] = field(default=(), compare=False, repr=False)
    param_nouns: tuple[str, ...] = field(default=(), compare=False, repr=False)
    enums: bool = field(default=False, compare=False, repr=False)
    knows: bool = field(default=False, compare=False, repr=False)
    exemplified: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # (read by membership alone: a tuple the tool already holds is reused where it says the
        # same, so a catalogue built keeps few more objects for the collector to count)
        things = (*self.nouns, *self.adjectives) if self.adjectives else self.nouns
        own = (*things, *self.namespace) if self.namespace else things
        params = self.params
        derived = {
            "things": things,
            "own": own,
            "name_words": name_words(self.name),
            "param_words": (
                params[0].words if len(params) == 1 else tuple(w for p in params for w in p.words)
            ),
            # a parameter's words that name it rather than the tool (binding.named_but_unbound)
            "unbound_words": tuple(_unbound(p.words, own) for p in params),
            "kinds": tuple(dict.fromkeys(p.kind for p in params)),
            "param_nouns": tuple(p.noun for p in params if p.noun),
            "enums": any(p.enum and p.kind in ("choice", "array") for p in self.params),
            "knows": any(p.known or p.listed for p in self.params),
            "exemplified": any(p.example_values for p in self.params),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def display(self) -> str:
        return self.name.replace("_", " ")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def _unbound(words: tuple[str, ...], own: tuple[str, ...]) -> tuple[str, ...]:
    """A parameter's words that name it rather than the tool: not generic, not short, not the tool's."""
    kept = tuple(w for w in words if w not in GENERIC and len(w) > 2 and w not in own)
    return words if kept == words else kept


def takes(param: Param, token: Token) -> bool:
    """Whether a destination parameter takes this value: an email param takes an email, and so on."""
    if param.kind != "destination":
        return False
    if token.kind == "email":
        return param.name in ("email", "to", "recipient", "address", "destination", "target")
    if token.kind == "url":
        return param.name in ("url", "webhook", "destination", "target")
    return param.name in ("to", "recipient", "destination", "target")


def _object(value: JSONValue) -> JSONObject:
    """A schema's member that should be an object, as one: anything else reads as an empty one."""
    return value if isinstance(value, dict) else {}


def _list(value: JSONValue) -> list[JSONValue]:
    return value if isinstance(value, list) else []


def _type(schema: JSONObject) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if "anyOf" in schema:
        kinds = [
            s.get("type")
            for s in _list(schema["anyOf"])
            if isinstance(s, dict) and s.get("type") != "null"
        ]
        kind = kinds[0] if kinds else kind
    return kind if isinstance(kind, str) else "string"


def _kind(name: str, schema: JSONObject) -> tuple[str, str | None]:
    parts = split_words(name) or [name.lower()]
    last = parts[-1]
    kind = _type(schema)
    if schema.get("enum"):
        return "choice", None
    if kind == "boolean":
        return "flag", None
    if kind in ("array", "object"):
        return kind, None
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


def _param(name: str, schema: JSONObject, required: bool) -> Param:
    kind, noun = _kind(name, schema)
    items = _object(schema.get("items"))
    known = schema.get("x-known-values")
    enum = _list(schema.get("enum")) or (_list(items.get("enum")) if kind == "array" else [])
    description = str(schema.get("description") or "")
    dated = date_format(description)
    formats = value_formats(description) if not enum else ()
    if dated and not formats:
        fields, separator = dated
        formats = (
            re.escape(separator).join(r"\d{4}" if f == "YYYY" else r"\d{2}" for f in fields),
        )
    return Param(
        name,
        kind,
        required,
        noun,
        tuple(str(v) for v in enum),
        tuple(singular(w) for w in split_words(name)),
        _type(schema),
        _type(items),
        tuple(str(v) for v in known) if isinstance(known, list) else (),
        described_words(description),
        listed_values(description),
        percent_form(description),
        example_words(description),
        date_format=dated,
        formats=formats,
        example_values=examples_as_written(description) if not enum else (),
    )


# Words between a description's verb and the thing it acts on, and words that end that thing's phrase
def tool_from_declaration(declaration: JSONObject) -> CatalogueTool:
    """From an MCP tool declaration: {name, description, inputSchema, annotations}."""
    name = declaration.get("name")
    if not isinstance(name, str):
        raise ValueError("a tool's declaration names it with text")
    schema = _object(declaration.get("inputSchema") or declaration.get("input_schema"))
    properties = _object(schema.get("properties"))
    required = {p for p in _list(schema.get("required")) if isinstance(p, str)}
    parsed = parse_name(name)
    action = parsed.action or "get"
    params = tuple(_param(p, _object(properties[p]), p in required) for p in sorted(properties))
    described = declaration.get("description")
    description = described if isinstance(described, str) else ""
    annotations = _object(declaration.get("annotations"))
    read_only = annotations.get("readOnlyHint", annotations.get("read_only_hint"))
    writes = (lx.ACTIONS.get(action) != "read") if read_only is None else not read_only
    return CatalogueTool(
        name=name,
        action=action,
        nouns=(parsed.head,) if parsed.head else (),
        params=params,
        writes=writes,
        description=description,
        adjectives=parsed.qualifiers,
        namespace=parsed.namespace,
        verb=parsed.verb or "",
        purpose=purpose_of(description),
    )


@dataclass(frozen=True)
class Catalogue:
    tools: tuple[CatalogueTool, ...]
    nouns: frozenset[str] = field(
        default=frozenset(), compare=False
    )  # every tool's thing and identifier nouns
    # the tools each verb's action reaches, filled on first use (selection.compatible decides)
    reached: dict[str | None, tuple[CatalogueTool, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        # computed once per catalogue, when it is built, not on each turn planned against it
        found: set[str] = set()
        for tool in self.tools:
            found.update(tool.nouns)
            found.update(p.noun for p in tool.params if p.noun)
        object.__setattr__(self, "nouns", frozenset(found))

    @classmethod
    def from_declarations(cls, declarations: list[JSONObject]) -> Catalogue:
        """The catalogue these declarations make, built once per content: a caller that plans many
        turns against one catalogue pays for reading its names and schemas on the first turn only.
        A catalogue is immutable, so one built earlier from the same content is the same catalogue."""
        key = _content_key(declarations)
        if key is None:
            return cls._build(declarations)
        with _BUILT_LOCK:
            built = _BUILT.get(key)
            if built is not None:
                _BUILT.move_to_end(key)
                return built
        built = cls._build(declarations)
        with _BUILT_LOCK:
            _BUILT[key] = built
            while len(_BUILT) > BUILT_KEPT:
                _BUILT.popitem(last=False)
        return built

    @classmethod
    def _build(cls, declarations: list[JSONObject]) -> Catalogue:
        tools = sorted((tool_from_declaration(d) for d in declarations), key=lambda t: t.name)
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise ValueError("a catalogue cannot hold two tools of the same name")
        return cls(tuple(tools))

    def names(self) -> list[str]:
        return [t.name for t in self.tools]


# Catalogues built, by the digest of their declarations' content (least recently used dropped first)
BUILT_KEPT = 512
_BUILT: OrderedDict[str, Catalogue] = OrderedDict()
_BUILT_LOCK = Lock()


def _content_key(declarations: list[JSONObject]) -> str | None:
    """A digest of the declarations as data: the same content in any key order is the same key.
    Declarations that are not JSON data (they could not have come over MCP) get no key and are not kept."""
    try:
        text = json.dumps(declarations, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return None
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
