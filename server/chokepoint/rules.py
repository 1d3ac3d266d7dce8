"""Rules on a tool call's data and trusted attributes: relations say whether an agent may use a
tool; rules say when.

A rule belongs to a binding — agent · this server · tool — never to a person or a value, and holds
for everyone who delegates to that agent. A binding may carry several rules; all must pass. A rule
is written with the builder (field · operator · value, joined by all/any) or in CEL; builder rules
compile to the same CEL. CEL runs in `common-expression-language` (Rust core): measured here at
~6 µs an evaluation against ~260 µs for the pure-Python cel-python, on the same expression.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TypedDict

import cel

from server.chokepoint.rule_cost import TooCostly, measure
from server.errors import ParleyError
from server.manifest.schema import Binding, RuleDecl

OPERATORS: dict[str, dict[str, str]] = {
    "text": {"is": "==", "is not": "!=", "is one of": "in", "starts with": "startsWith"},
    "number": {
        "is at most": "<=",
        "is less than": "<",
        "is at least": ">=",
        "is more than": ">",
        "is": "==",
    },
    "boolean": {"is true": "== true", "is false": "== false"},
}
ROOTS = ("args", "subject", "resource")
_PATH = re.compile(r"\b(args|subject|resource)\.([A-Za-z_][A-Za-z0-9_]*)")
# A root read whole (`subject["status"]`, `"status" in subject`): the attributes it needs cannot be
# known, so no context source would be asked for them; string literals are left out of the search.
_WHOLE_ROOT = re.compile(r"\b(args|subject|resource)\b(?!\s*\.\s*[A-Za-z_])")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
SAMPLE = {"text": "sample", "number": 1, "boolean": False}
# what a rule reads: the call's arguments and the trusted attributes, by root (args, subject, …)
RuleContext = dict[str, dict[str, object]]


class RuleListing(TypedDict):
    """A rule in force or in draft, as `parley rules list` and the console show it."""

    id: str  # manifest:<n> or store:<id>
    state: str
    binding: str
    name: str
    reads_as: str
    problem: str | None
    removal_drafted: bool


class RuleError(ParleyError):
    """A rule that cannot be drafted or published; the message says what to fix, and `at` (line, column),
    1-based, where in a CEL expression it went wrong, when that is known."""

    def __init__(self, message: str, at: tuple[int, int] | None = None):
        super().__init__(message)
        self.at = at


_SYNTAX = re.compile(
    r"<input>:(\d+):(\d+): (Syntax error: [^\n]*?)(?: expecting .*)?$", re.MULTILINE
)


def _position(expression: str, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of a character offset in the expression."""
    before = expression[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


@dataclass(frozen=True)
class Rule:
    """A compiled rule on one binding, ready to evaluate."""

    binding: Binding
    name: str
    reads_as: str
    expression: str
    program: cel.Program
    attributes: frozenset[str]  # the trusted attributes it reads: subject.x, resource.y
    origin: str  # manifest, or the store's rule id
    is_cel: bool
    cost: int  # token evaluations at most (`rule_cost`): a cheap rule runs on the event loop


def argument_types(input_schema: dict[str, object]) -> dict[str, str]:
    """A tool's arguments and their rule types, read from its JSON schema."""
    types: dict[str, str] = {}
    properties = input_schema.get("properties")
    for name, schema in (properties if isinstance(properties, dict) else {}).items():
        kinds = [schema.get("type")] + [
            s.get("type") for s in schema.get("anyOf", []) if isinstance(s, dict)
        ]
        kinds = [k for k in kinds if k and k != "null"]
        kind = kinds[0] if kinds else "string"
        types[name] = {
            "string": "text",
            "number": "number",
            "integer": "number",
            "boolean": "boolean",
        }.get(kind, "other")
    return types


def _field(name: str) -> str:
    return name if name.startswith(ROOTS) and "." in name else f"args.{name}"


def _literal(value: object, kind: str) -> str:
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RuleError(f"{value!r} is not a number")
        return repr(value)
    if kind == "text":
        return json.dumps(str(value))
    raise RuleError(f"no literal for {kind}")


def _display(path: str) -> str:
    return path[5:] if path.startswith("args.") else path


def compile_builder(decl: RuleDecl, types: dict[str, str]) -> tuple[str, str]:
    """(CEL expression, reads-as sentence) for a builder rule; `types` maps field paths to types."""
    if not decl.conditions:
        raise RuleError(f"rule '{decl.name}': a builder rule needs at least one condition")
    parts, sentences = [], []
    for condition in decl.conditions:
        path = _field(condition.field)
        kind = types.get(path)
        if kind is None:
            raise RuleError(f"rule '{decl.name}': unknown field '{condition.field}'")
        ops = OPERATORS.get(kind)
        if ops is None or condition.op not in ops:
            allowed = ", ".join(OPERATORS.get(kind, {})) or "none"
            raise RuleError(
                f"rule '{decl.name}': '{condition.op}' is not an operator for {kind} field "
                f"'{_display(path)}' (use: {allowed})"
            )
        op = ops[condition.op]
        if kind == "boolean":
            if condition.value is not None or condition.attribute:
                raise RuleError(f"rule '{decl.name}': '{condition.op}' takes no value")
            parts.append(f"{path} {op}")
            sentences.append(f"{_display(path)} {condition.op}")
            continue
        if condition.attribute:
            other = condition.attribute
            if not other.startswith(("subject.", "resource.")):
                raise RuleError(
                    f"rule '{decl.name}': a condition compares with a trusted attribute "
                    f"(subject.… or resource.…), never with another call argument"
                )
            if types.get(other) != kind:
                raise RuleError(f"rule '{decl.name}': '{other}' is not a {kind} trusted attribute")
            if condition.op in ("is one of",):
                raise RuleError(
                    f"rule '{decl.name}': 'is one of' takes a list of values, not an attribute"
                )
            right = other
            shown = other
        elif condition.op == "is one of":
            if not isinstance(condition.value, list) or not condition.value:
                raise RuleError(f"rule '{decl.name}': 'is one of' takes a non-empty list of values")
            right = "[" + ", ".join(_literal(v, kind) for v in condition.value) + "]"
            shown = "[" + ", ".join(str(v) for v in condition.value) + "]"
        else:
            if condition.value is None:
                raise RuleError(
                    f"rule '{decl.name}': '{condition.op}' needs a value or an attribute"
                )
            right = _literal(condition.value, kind)
            shown = str(condition.value)
        if op == "startsWith":
            parts.append(f"{path}.startsWith({right})")
        else:
            parts.append(f"{path} {op} {right}")
        sentences.append(f"{_display(path)} {condition.op} {shown}")
    joiner = " && " if decl.match == "all" else " || "
    word = " AND " if decl.match == "all" else " OR "
    return joiner.join(f"({p})" for p in parts), word.join(sentences)


def check_cel(expression: str, name: str, types: dict[str, str]) -> cel.Program:
    """Compile, and refuse what costs too much (measured before the compiler sees it), reads an unknown
    attribute or does not return a boolean."""
    cost_of(expression, name)
    try:
        program = cel.compile(expression)
    except (ValueError, RuntimeError) as exc:
        # the parser's own words about the steward's expression (no call's data is anywhere near it)
        syntax = _SYNTAX.search(str(exc))
        if syntax is None:
            raise RuleError(f"rule '{name}': the CEL expression does not parse") from None
        line, column = int(syntax.group(1)), int(syntax.group(2))
        raise RuleError(
            f"rule '{name}': the CEL expression does not parse at line {line}, column {column} "
            f"({syntax.group(3)})",
            (line, column),
        ) from None
    whole = _WHOLE_ROOT.search(_STRINGS.sub('""', expression))
    if whole is not None:
        raise RuleError(
            f"rule '{name}': reads {whole.group(1)} as a whole; name each attribute it needs, "
            f"as {whole.group(1)}.name",
            _position(expression, whole.start()),
        )
    for read in _PATH.finditer(expression):
        if f"{read.group(1)}.{read.group(2)}" not in types:
            raise RuleError(
                f"rule '{name}': reads unknown attribute '{read.group(1)}.{read.group(2)}'",
                _position(expression, read.start()),
            )
    unknown_roots = set(
        program.variables() if callable(program.variables) else program.variables
    ) - set(ROOTS)
    if unknown_roots:
        raise RuleError(
            f"rule '{name}': unknown variable(s) {', '.join(sorted(unknown_roots))}; "
            "rules read args, subject and resource"
        )
    result, evaluated = None, False
    for number in (1, 1.0):  # integer and double fields: CEL does not mix them in arithmetic
        sample: dict[str, dict[str, object]] = {root: {} for root in ROOTS}
        for path, kind in types.items():
            root, attribute = path.split(".", 1)
            sample[root][attribute] = number if kind == "number" else SAMPLE.get(kind, "sample")
        try:
            result = program.execute(sample)
            evaluated = True
            break
        except Exception:  # noqa: BLE001 - sample values only; the message is ours
            continue
    if not evaluated:
        raise RuleError(f"rule '{name}': the CEL expression fails to evaluate on its fields' types")
    if not isinstance(result, bool):
        raise RuleError(
            f"rule '{name}': the CEL expression must return a boolean, not {type(result).__name__}"
        )
    return program


def cost_of(expression: str, name: str) -> int:
    """The rule's cost (`rule_cost.measure`), or the RuleError that says which bound it passes."""
    try:
        return measure(expression).cost
    except TooCostly as exc:
        raise RuleError(f"rule '{name}': {exc}") from None


def together(rules: list[Rule]) -> cel.Program | None:
    """One program giving every rule's verdict, in order, as a list: a call through several rules
    then hands its context to the CEL engine once, not once a rule (most of an evaluation's cost).
    Each expression sits on lines of its own, so a `//` comment in one never reaches the next.
    None for fewer than two rules, or if they do not compile together (each is then run alone)."""
    if len(rules) < 2:
        return None
    try:
        return cel.compile("[\n" + ",\n".join(f"(\n{rule.expression}\n)" for rule in rules) + "\n]")
    except Exception:  # noqa: BLE001 - the library's own errors; each rule compiled alone already
        return None


def compile_rule(decl: RuleDecl, binding: Binding, types: dict[str, str], origin: str) -> Rule:
    if decl.cel and decl.conditions:
        raise RuleError(f"rule '{decl.name}': give conditions or cel, not both")
    if decl.cel:
        expression, reads_as, is_cel = decl.cel.strip(), f"CEL: {decl.cel.strip()}", True
    else:
        expression, reads_as = compile_builder(decl, types)
        is_cel = False
    program = check_cel(expression, decl.name, types)
    attributes = frozenset(f"{r}.{a}" for r, a in _PATH.findall(expression) if r != "args")
    cost = cost_of(expression, decl.name)
    return Rule(binding, decl.name, reads_as, expression, program, attributes, origin, is_cel, cost)
