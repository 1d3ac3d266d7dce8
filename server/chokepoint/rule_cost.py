"""What a rule may cost, bounded before it is compiled: one check for every way a rule arrives (the
CLI's draft, the console's draft and Preview, the manifest, a stored rule read back at start).

The CEL library (`common-expression-language`) offers no cost estimate and no limit on an evaluation,
and an evaluation in a thread cannot be stopped, so the bound is static, read from the expression's
tokens: its length, its nesting, and its cost, the number of tokens it evaluates, each counted once
for every element of every comprehension (`exists`, `all`, `map`, …) around it. A comprehension over
a list written in the rule counts that list's elements; over anything else (an argument, a list put
together by `+`) the widest list the rule could hold, and never fewer than `UNKNOWN_RANGE`. Ten
nested `[0,…,9].exists(…)` cost 10¹⁰ and are refused in microseconds, before the compiler sees them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARACTERS = 4000  # the compiler recurses; a 15,000-term sum overflows its stack
MAX_TOKENS = 2000
MAX_NESTING = 32  # brackets inside brackets
MAX_COST = 20_000  # token evaluations: a few milliseconds of the CEL engine at most
UNKNOWN_RANGE = (
    100  # the least a comprehension over a list not written in the rule is taken to hold
)
COMPREHENSIONS = frozenset(
    {"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap"}
)

_TOKEN = re.compile(
    r"""(?P<space>\s+|//[^\n]*)"""
    r"""|(?P<string>[rRbB]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))"""
    r"""|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""
    r"""|(?P<number>\d[\w.]*)"""
    r"""|(?P<other>&&|\|\||==|!=|<=|>=|.)"""
)
_VALUE_BEFORE = ("name", "number", "string", ")", "]", "}")  # a `[` after these indexes, not a list


@dataclass(frozen=True)
class RuleCost:
    """What a rule was measured at: `cost` in token evaluations (see the module's docstring)."""

    characters: int
    tokens: int
    nesting: int
    cost: int
    comprehensions: int


class TooCostly(ValueError):
    """A rule past one of the bounds; the message says which, and by how much."""


@dataclass
class _Frame:
    opener: str
    multiplier: int
    literal: bool  # a list or map written in the rule
    comprehension_range: int | None = None
    commas: int = 0
    filled: bool = False


def measure(expression: str) -> RuleCost:
    """The rule's size, nesting and cost; raises `TooCostly` as soon as one passes its bound."""
    tokens = _terms(expression)
    widest = max(UNKNOWN_RANGE, _elements_written(tokens))
    stack = [_Frame("", 1, False)]
    cost = nesting = comprehensions = 0
    closed: tuple[int, int] | None = None  # (index of a closing token, how many elements it holds)
    for index, (_, text) in enumerate(tokens):
        frame = stack[-1]
        if text not in (")", "]", "}"):
            frame.filled = True
        cost += frame.multiplier
        if text == "," and len(stack) > 1:
            frame.commas += 1
        elif text in ("(", "[", "{"):
            previous = _kind(tokens, index - 1)
            size: int | None = None
            if text == "(" and previous == "name" and _kind(tokens, index - 2) == ".":
                if tokens[index - 1][1] in COMPREHENSIONS:
                    size = closed[1] if closed is not None and closed[0] == index - 3 else widest
                    comprehensions += 1
            literal = text == "{" or (text == "[" and previous not in _VALUE_BEFORE)
            stack.append(
                _Frame(text, frame.multiplier * (size or 1), literal, comprehension_range=size)
            )
            nesting = max(nesting, len(stack) - 1)
            if nesting > MAX_NESTING:
                raise TooCostly(f"the expression nests deeper than {MAX_NESTING} brackets")
        elif text in (")", "]", "}") and len(stack) > 1:
            done = stack.pop()
            if done.literal:
                closed = (index, done.commas + 1 if done.filled else 0)
            elif done.comprehension_range is not None:  # map and filter keep at most their range
                closed = (index, done.comprehension_range)
        if cost > MAX_COST:
            raise TooCostly(
                f"the expression would cost more than {MAX_COST:,} steps to evaluate (its "
                "comprehensions multiply: each element of an outer list runs the whole inner one); "
                "compare fields directly, or use fewer or smaller lists"
            )
    return RuleCost(len(expression), len(tokens), nesting, cost, comprehensions)


def _terms(expression: str) -> list[tuple[str, str]]:
    """The expression's terms as (kind, text), spaces aside; raises `TooCostly` for an expression
    too long to read or with too many terms."""
    if len(expression) > MAX_CHARACTERS:
        raise TooCostly(
            f"the expression is {len(expression):,} characters; a rule is at most "
            f"{MAX_CHARACTERS:,}"
        )
    tokens: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(expression):
        kind = match.lastgroup or "other"
        if kind != "space":
            tokens.append((kind, match.group() if kind in ("name", "other") else ""))
    if len(tokens) > MAX_TOKENS:
        raise TooCostly(
            f"the expression has {len(tokens):,} terms; a rule has at most {MAX_TOKENS:,}"
        )
    return tokens


def _kind(tokens: list[tuple[str, str]], index: int) -> str:
    """A token's kind, or its text for punctuation: what a bracket after it means."""
    if index < 0:
        return ""
    kind, text = tokens[index]
    return text if kind == "other" else kind


def _elements_written(tokens: list[tuple[str, str]]) -> int:
    """An upper bound on the elements of any list the rule can put together: every element written."""
    return sum(1 for _, text in tokens if text == ",") + 1
