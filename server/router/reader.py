"""Reading a turn before any tool is compared: tokens, then its logical form.

The form says what the turn asks (act), with which verb (predicate), the role of its words
(thing, pointed, qualifier, destination, quantity, time), polarity, tense and frame. Portuguese
is folded (no accents, informal spellings expanded) before lookup; values keep their original text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from server.router import lexicon as lx
from server.router.roles import destination_of, thing_of, times_of
from server.router.tokens import (
    Token as Token,
)  # re-exported: reader.Token, reader.fold
from server.router.tokens import (
    fold as fold,
)
from server.router.tokens import (
    tokenize,
)
from server.router.verbs import Verb, find_verb

LANGUAGES = ("en", "pt-BR")


@dataclass
class Clause:
    tokens: list[Token]
    verb: Verb | None


@dataclass
class Form:
    act: str
    predicate: str | None
    roles: dict[str, str]
    polarity: str
    tense: str
    frame: str

    def as_dict(self) -> dict[str, object]:
        return {
            "act": self.act,
            "predicate": self.predicate,
            "roles": [{"role": role, "text": text} for role, text in sorted(self.roles.items())],
            "polarity": self.polarity,
            "tense": self.tense,
            "frame": self.frame,
        }


@dataclass
class Reading:
    """Everything the planner needs from the turn."""

    language: str
    tokens: list[Token]
    clauses: list[Clause]
    form: Form
    destination: list[Token] = field(default_factory=list)
    pointed: bool = False
    operators: list[str] = field(default_factory=list)
    definition: bool = False  # "what is a mandate?": what a kind of thing is, not one of them


# "what is a mandate?", "o que é um mandato?": the openers of a question asking what a kind of thing
# is; the thing follows bare or with an indefinite article, in lowercase words alone
_DEFINITION_OPENERS = {
    "en": (("what", "is"), ("what", "are")),
    "pt-BR": (("o", "que", "e"), ("o", "que", "sao"), ("que", "e")),
}
_INDEFINITE = {"en": frozenset({"a", "an"}), "pt-BR": frozenset({"um", "uma", "uns", "umas"})}


def _definition(tokens: list[Token], language: str) -> bool:
    """A question of what a kind of thing is: its opener, then one to three lowercase words after
    at most an indefinite article, then nothing but its mark. "What is the weather?", "what are my
    orders?" and "what is Bitcoin?" ask for one thing (an article, an owner, a name)."""
    if len(tokens) > 8:
        return False  # an opener of at most three words, an article, three words and a mark
    body = tokens
    if body and body[-1].kind == "punct" and body[-1].norm in ("?", "."):
        body = body[:-1]
    if any(t.kind != "word" for t in body):
        return False
    norms = tuple(t.norm for t in body)
    opener = next((o for o in _DEFINITION_OPENERS[language] if norms[: len(o)] == o), None)
    if opener is None:
        return False
    rest = body[len(opener) :]
    if rest and rest[0].norm in _INDEFINITE[language]:
        rest = rest[1:]
    function, times = lx.FUNCTION_WORDS[language], lx.TIME_WORDS[language]
    return 1 <= len(rest) <= 3 and all(
        t.text.islower() and t.norm not in function and t.norm not in times for t in rest
    )


@lru_cache(maxsize=64)
def _openers_by_first_word(openers: tuple[str, ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Openers by their first word, each word list longest opener first (as typed, longest first)."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for opener in sorted(openers, key=len, reverse=True):
        parts = tuple(opener.split(" "))
        index.setdefault(parts[0], []).append(parts)
    return {first: tuple(found) for first, found in index.items()}


# The grammar's own opener tables, indexed at import: a turn's lookups hash no table
_INDEXED = {
    id(table): (table, _openers_by_first_word(table))
    for tables in (
        lx.MEANING_OPENERS,
        lx.HOWTO_OPENERS,
        lx.ORDERING_OPENERS,
        lx.QUESTION_OPENERS,
    )
    for table in tables.values()
}


def _starts(words: list[str], openers: tuple[str, ...]) -> str | None:
    """The longest opener the words begin with, word for word."""
    if not words:
        return None
    indexed = _INDEXED.get(id(openers))
    if indexed is not None and indexed[0] is openers and " " not in words[0]:
        # an opener's first word is the turn's first word, joined text or not
        if words[0] not in indexed[1]:
            return None
    if " " in "".join(words[:6]):  # a quoted phrase among the first words: compare the joined text
        joined = " ".join(words)
        for opener in sorted(openers, key=len, reverse=True):
            if joined == opener or joined.startswith(opener + " "):
                return opener
        return None
    for parts in _openers_by_first_word(openers).get(words[0], ()):
        if tuple(words[: len(parts)]) == parts:
            return " ".join(parts)
    return None


_SPLITTERS = {
    language: [s.split() for s in sorted(lx.SPLITTERS[language], key=len, reverse=True)]
    for language in LANGUAGES
}


_SPLITTER_FIRSTS = {
    language: frozenset(parts[0] for parts in splitters)
    for language, splitters in _SPLITTERS.items()
}


def split_clauses(tokens: list[Token], language: str) -> list[Clause]:
    """Split on 'and'/'e' (then, depois) only where a new verb follows: one clause per step."""
    splitters = _SPLITTERS[language]
    firsts = _SPLITTER_FIRSTS[language]
    clauses: list[Clause] = []
    start = 0
    i = 0
    # only a splitter's first word or a semicolon can part the clause: those places alone are read,
    # in order, each at most once (a split goes on after the splitter's words)
    for at in [k for k, t in enumerate(tokens) if t.norm in firsts or t.norm == ";"]:
        if at < i:
            continue
        i = at
        token = tokens[i]
        matched = None
        for parts in splitters if token.norm in firsts else ():
            if [t.norm for t in tokens[i : i + len(parts)]] == parts:
                matched = parts
                break
        if matched and i > start:
            after = i + len(matched)
            verb = find_verb(tokens[after : after + 3], language) if after < len(tokens) else None
            if (
                verb is not None
                and verb.index == 0
                or (verb is not None and tokens[after].norm in ("me", "depois"))
            ):
                clauses.append(Clause(tokens[start:i], None))
                start = after
                i = after
                continue
        elif token.kind == "punct" and token.norm in (";",) and i > start:
            clauses.append(Clause(tokens[start:i], None))
            start = i + 1
        i += 1
    clauses.append(Clause(tokens[start:], None))
    result = []
    for clause in clauses:
        if not clause.tokens:
            continue
        result.append(Clause(clause.tokens, find_verb(clause.tokens, language)))
    return result or [Clause([], None)]


def _frame(words: list[str], tokens: list[Token], language: str, meaning: bool) -> str:
    if meaning:
        return "question"
    if _starts(words, lx.HOWTO_OPENERS[language]):
        return "howto"
    if _starts(words, lx.ORDERING_OPENERS[language]):
        return "ordering"
    if tokens and tokens[-1].kind == "punct" and tokens[-1].norm == "?":
        return "question"
    if (
        language == "en"
        and len(words) > 1
        and words[0] in ("do", "does", "did")
        and words[1] == "not"
    ):
        return "none"  # "do not charge …" is an instruction, not a question
    if _starts(words, lx.QUESTION_OPENERS[language]):
        return "question"
    return "none"


def read(turn: str, language: str, awaiting: bool = False) -> Reading:
    tokens = tokenize(turn, language)
    words = [t.norm for t in tokens if t.kind != "punct"]
    clauses = split_clauses(tokens, language)
    first_verb = next((c.verb for c in clauses if c.verb is not None), None)
    meaning = bool(_starts(words, lx.MEANING_OPENERS[language]))  # read once, for frame and act
    frame = _frame(words, tokens, language, meaning)
    polarity = "negated" if _negated(words, language) else "affirmative"
    tense = _tense(words, first_verb, frame, language)

    roles: dict[str, str] = {}
    destination = destination_of(tokens, language)
    if destination:
        roles["destination"] = " ".join(t.text for t in destination)
    times = times_of(tokens, language)
    if times:
        roles["time"] = " ".join(t.text for t in times)
    quantities = [t for t in tokens if t.kind in ("decimal", "money")]
    if quantities:
        roles["quantity"] = " ".join(t.text for t in quantities)
    pointer_words = lx.POINTERS[language]
    pointers = [t for t in tokens if t.kind == "word" and t.norm in pointer_words]
    if pointers:
        roles["pointed"] = pointers[0].text
    operators = _operators(words, language)
    verb_span, start = _verb_positions(clauses, first_verb)
    roles.update(thing_of(tokens, verb_span, start, operators, destination, language))
    act = _act(first_verb, frame, meaning, awaiting)
    form = Form(
        act=act,
        predicate=first_verb.action if first_verb else None,
        roles=roles,
        polarity=polarity,
        tense=tense,
        frame=frame,
    )
    return Reading(
        language,
        tokens,
        clauses,
        form,
        destination,
        bool(pointers),
        operators,
        frame == "question" and _definition(tokens, language),
    )


def _verb_positions(clauses: list[Clause], first_verb: Verb | None) -> tuple[set[int], int]:
    """The token indices of every clause's verb, and where the first verb ends (the thing is
    looked for after it first)."""
    verb_span = set()
    for clause in clauses:
        if clause.verb:
            verb_span |= {
                clause.tokens[clause.verb.index + k].index for k in range(clause.verb.length)
            }
    start = (first_verb.index + first_verb.length) if first_verb else 0
    if first_verb:
        start = (
            clauses[0].tokens[first_verb.index].index + first_verb.length
            if clauses[0].verb
            else start
        )
    return verb_span, start


def _negated(words: list[str], language: str) -> bool:
    negations = lx.NEGATIONS[language]
    return not negations.isdisjoint(words) or (
        "n't" in "".join(words) and any(w.endswith("n't") for w in words)
    )  # don't, isn't


def _tense(words: list[str], first_verb: Verb | None, frame: str, language: str) -> str:
    """The first verb's tense, made past by a past auxiliary opening a question ("did", "has")
    and future by a future auxiliary anywhere; a future with no verb is the present."""
    tense = first_verb.tense if first_verb else "present"
    if any(w in lx.PAST_AUXILIARIES[language] for w in words[:3]) and frame == "question":
        tense = "past"
    if language == "en" and words[:1] in (["did"], ["has"], ["have"], ["was"], ["were"]):
        tense = "past"
    if tense != "past" and not lx.FUTURE_AUXILIARIES[language].isdisjoint(words):
        tense = "future"
    if tense == "future" and first_verb is None:
        tense = "present"
    return tense


_PADDED_OPERATORS = {
    language: tuple((f" {phrase} ", op) for phrase, op in table.items())
    for language, table in lx.COMPUTE_OPERATORS.items()
}


def _operators(words: list[str], language: str) -> list[str]:
    found = []
    joined = " " + " ".join(words) + " "
    for padded, op in _PADDED_OPERATORS[language]:
        if padded in joined:
            found.append(op)
    for symbol in ("+", "*", "/"):
        if f" {symbol} " in joined:
            found.append(symbol)
    if " x " in joined and _TIMES.search(
        joined
    ):  # "3 x 4" multiplies; the x of "x = 3" is a variable's name
        found.append("*")
    return found


_TIMES = re.compile(r" -?\d[\d.,]* x -?\d")


def _act(verb: Verb | None, frame: str, meaning: bool, awaiting: bool) -> str:
    if meaning:
        return "meaning"
    if frame == "howto":
        return "howto"
    if verb is None:
        if awaiting:
            return "reply"
        if frame == "ordering":
            return "give"
        if frame == "question":
            return "inform"
        return "none"
    if verb.action == "give" or (frame == "ordering" and lx.ACTIONS.get(verb.action) == "read"):
        return "give" if verb.action == "give" else "inform"
    return lx.ACT_OF_ACTION.get(verb.action, "act")
