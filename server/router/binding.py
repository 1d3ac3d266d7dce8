"""Binding a turn's values to a tool's parameters by what each parameter is, never by position.

A value goes to a parameter when the turn says which: the label beside a number ("height of 5",
"5 years", "a = 1"), the noun after the noun a parameter names ("pedido 4411"), the phrase after
the preposition a parameter's name implies ("in Paris" for a location, "from Sydney to Melbourne"
for origin and destination), a value the application knows for that parameter, an enum value the
turn names, the words of a flag ("including human impact"). A number alone with one numeric
parameter to take it is that parameter's; so is a name alone for the one parameter that must have
a name. Values written in a row go to parameters named in a row (num1, num2), a range to a start
and an end, names joined by "and" to the one list. Anything less sure is not bound: the parameter
is reported unsure and the plan asks for it, naming it. Passes run surest first (Binder.bind); the
phrase passes are in phrases.py, the row passes in rows.py, the kind passes in kinds.py, the number
passes in numeric.py, and the labels they read beside a value in labels.py.

Known values: a parameter declares them with `enum` or `x-known-values` in its schema, and the host
adds them per plan with `context={"known_values": {"member": ["ana", "bruno"]}}`. Such a parameter
takes only a value the turn names from that list (a handle the caller can see), source "turn".
"""

from __future__ import annotations

import re
from collections.abc import Callable

from server.router import lexicon as lx
from server.router.accounting import AccountingBinding
from server.router.catalogue import TEXT_NAMES, CatalogueTool, Param, takes
from server.router.certainty import NUMERIC
from server.router.dates import as_described
from server.router.dictated import DictationBinding
from server.router.kinds import FLAG_NOISE
from server.router.labels import LabelBinding
from server.router.name_runs import WHOLE_VALUES
from server.router.names import singular
from server.router.numeric import NumberBinding
from server.router.phrases import PhraseBinding
from server.router.reader import Reading, Token
from server.router.state import Claim, Senses
from server.router.tokens import joined

_DIGIT = re.compile(r"\d")
TIME_MODIFIERS = frozenset(
    {"next", "this", "last", "coming", "proximo", "proxima", "este", "esta", "passado", "passada"}
)


class Binder(PhraseBinding, NumberBinding, AccountingBinding, DictationBinding, LabelBinding):
    """One tool's arguments from one clause: (arguments, sources, unsure parameter names)."""

    def __init__(
        self,
        tool: CatalogueTool,
        tokens: list[Token],
        reading: Reading,
        language: str,
        things: list[tuple[Token, str]],
        used: set[int],
        known: dict[str, tuple[str, ...]],
    ):
        self.tool = tool
        self.tokens = tokens
        self.reading = reading
        self.language = language
        self.things = things
        self.used = used
        self.known = known
        self.function = lx.FUNCTION_WORDS[language]
        self.arguments: dict[str, str] = {}
        self.sources: dict[str, str] = {}
        self.unsure: set[str] = set()
        self.placed: list[str] = []
        self.by_index = {t.index: t for t in tokens}
        self.first_word = next((t.index for t in tokens if t.kind == "word"), -1)
        # phrase() by start index (it reads no binding), and the tokens a name, code or quote can
        # start at: a value written whole, or a word other than the turn's first that does not
        # start in lowercase with no digit (phrases.opens, written out)
        self._phrases: dict[int, list[Token] | None] = {}
        first_word = self.first_word
        self.openers = [
            t
            for t in tokens
            if t.kind in WHOLE_VALUES
            or (
                t.kind == "word"
                and t.index != first_word
                and not (t.text[:1].islower() and (t.text.isalpha() or not _DIGIT.search(t.text)))
            )
        ]
        # to skip a pass whose words, or whose kinds of value, the turn does not have
        self.norms = {t.norm for t in tokens}
        self.kinds = {t.kind for t in tokens}
        self._free: tuple[int, list[Param]] | None = None
        self.nouns = {
            token.index: noun for token, noun in things
        }  # the vocabulary's noun for a turn's word

    def bind(self, senses: Senses, verb_end: int) -> None:
        """Every pass, surest first: each takes only what the ones before it left."""
        self.statement(
            verb_end
        )  # what the turn dictates, whole, before any word of it is read apart
        self.identifiers()
        self.known_values()
        self.destinations()
        self.lists()
        self.years()
        self.numbers()
        self.labelled_texts()
        self.times()
        self.durations()
        self.units()
        self.choices(senses)
        self.flags(senses)
        self.names()
        self.between()
        self.makers()
        self.places()
        self.labelled()
        self.quoted()
        self.named_list()
        self.lone_name()
        self.free_text(verb_end)
        self.examples()
        self.named_but_unbound()
        self.certain()
        self.values_left()
        self.restriction_left()
        self.accounted()

    def noun(self, token: Token) -> str:
        """A label word as the tool names it: the vocabulary's noun ("altura" is height), else singular."""
        return self.nouns.get(token.index) or singular(token.norm)

    def put(self, param: Param, value: str, source: str = "turn", *tokens: Token) -> None:
        self.arguments[param.name] = value
        self.sources[param.name] = source
        self.used.update(t.index for t in tokens)

    def settle(
        self,
        params: list[Param],
        claimed: dict[str, list[Claim]],
        bind: Callable[[Param, Claim], None],
    ) -> None:
        """Each parameter one value claimed for it binds; two claimed for one are asked about."""
        for param in params:
            values = claimed.get(param.name, [])
            if len(values) == 1:
                bind(param, values[0])
            elif values:
                self.unsure.add(param.name)

    def free(self, kind: str | None = None) -> list[Param]:
        """The parameters with no value yet (of one kind), recomputed only after a value is put."""
        free = self._free
        if free is None or free[0] != len(self.arguments):
            free = self._free = (
                len(self.arguments),
                [p for p in self.tool.params if p.name not in self.arguments],
            )
        if kind is None:
            return free[1]
        if kind not in self.tool.kinds:
            return []  # the tool has no parameter of this kind (the common case, decided at once)
        return [p for p in free[1] if p.kind == kind]

    # --- the passes ---------------------------------------------------------------------------

    def identifiers(self) -> None:
        """The number right after the noun an identifier names ("pedido 4411")."""
        for param in self.free("identifier"):
            for token, noun in self.things:
                nxt = self.by_index.get(token.index + 1)
                if (
                    noun == param.noun
                    and nxt is not None
                    and nxt.kind == "number"
                    and nxt.index not in self.used
                ):
                    if self._counts_next(nxt):
                        self.unsure.add(param.name)  # "service 10 times": a count, not service 10
                    else:
                        self.put(param, nxt.text, "turn", nxt)
                    break

    def destinations(self) -> None:
        for param in self.free("destination"):
            value = next(
                (
                    t
                    for t in self.reading.destination
                    if t in self.tokens and t.index not in self.used and takes(param, t)
                ),
                None,
            )
            if value is not None and value.kind == "word":
                # a name after "to" is the whole name ("to New York City"); one that runs on is not a value
                run = self.phrase(value.index)
                if run:
                    self.put(param, joined(run), "turn", *run)
                else:
                    self.unsure.add(param.name)
            elif value is not None:
                self.put(param, value.text, "turn", value)

    def times(self) -> None:
        """A date to a date parameter; the turn's time words (next month, tomorrow at 9, 12pm) to
        the one time parameter; two time parameters and one time are asked about."""
        params = self.free("time")
        dates = (
            [t for t in self.tokens if t.kind == "date" and t.index not in self.used]
            if "date" in self.kinds
            else []
        )
        if len(dates) == 1:
            dated = [p for p in params if {"date", "day", "data", "dia"} & set(p.words)] or params
            if len(dated) == 1:
                value = as_described(dates[0].text, self.language, dated[0].date_format)
                if value is None or any(
                    t.kind == "word" and t.norm in lx.DAY_WORDS and t.index not in self.used
                    for t in self.tokens
                ):
                    # "this Sunday? Today is 2023-09-29": a date and a day said another way, so no sure date
                    self.unsure.add(dated[0].name)  # "03/04/2025" where the tool wants YYYY-MM-DD
                else:
                    self.put(dated[0], value, "turn", dates[0])
                params = [p for p in params if p is not dated[0]]
        words = self.tool.param_words
        if ("month" in words or "mes" in words) and not self.norms.isdisjoint(lx.MONTHS):
            months = [
                t
                for t in self.tokens
                if t.kind == "word" and t.norm in lx.MONTHS and t.index not in self.used
            ]
            for param in [p for p in self.free() if "month" in p.words or "mes" in p.words]:
                if len(months) == 1:
                    self.put(param, months[0].text, "turn", months[0])
        if not params:
            return
        value, tokens = self.time_text()
        others = [
            t
            for t in self.tokens
            if t.index not in self.used
            and t not in tokens
            and (
                t.kind == "date"
                or (t.kind == "word" and t.norm in lx.MONTHS and t.text[:1].isupper())
            )
        ]
        if value and others:
            self.unsure.update(
                p.name for p in params
            )  # "next month (April 2022)": two ways to say when
        elif value and len(params) == 1:
            self.put(params[0], value, "turn", *tokens)
        elif value:
            self.unsure.update(p.name for p in params)

    def time_text(self) -> tuple[str, list[Token]]:
        words = lx.TIME_WORDS[self.language]
        parts, taken = [], []
        for token in self.tokens:
            before = self.by_index.get(token.index - 1)
            if token.index in self.used:
                continue
            if (
                token.kind == "word"
                and token.norm in words
                and not (
                    token.norm in ("am", "pm") and before is not None and before.kind == "number"
                )
            ):
                if before is not None and before.norm in TIME_MODIFIERS:
                    parts.append(f"{before.text} {token.text}")
                    taken.append(before)
                else:
                    parts.append(token.text)
                taken.append(token)
            elif (
                token.kind in ("number", "decimal")
                and before is not None
                and before.norm in ("at", "as", "às")
            ):
                after = self.by_index.get(token.index + 1)
                if after is not None and after.norm in ("am", "pm"):
                    parts.append(token.text + ("" if after.glued else " ") + after.text)
                    taken += [token, after]
                else:
                    parts.append(token.text)
                    taken += [token]
        return " ".join(parts), taken

    def named_but_unbound(self) -> None:
        """A parameter the turn names by its own words whose value was not bound is asked for."""
        free = self.free()
        # (the turn is read for a name or a means left only where a parameter could be doubted for it)
        named = [
            p.name
            for p in free
            if p.type in ("string", "array") and p.kind not in ("choice", "flag", "time")
        ]
        if (named or (self.placed and not free)) and self.names_left():
            # a name the turn gives that no parameter took: it may belong where another one went
            self.unsure.update(named)
            self.unsure.update(name for name in self.placed if not free)
        means = [
            p.name
            for p in free
            if p.type == "string" and p.kind in ("text", "choice") and p.name not in TEXT_NAMES
        ]
        if means and self._means_left():
            # "by using a public transportation", "de trem": a way of doing it that no parameter took
            self.unsure.update(means)
        if not free:
            return
        # (a word that names the tool's own thing, as the vocabulary reads it, labels no parameter)
        words = {
            singular(t.norm)
            for t in self.tokens
            if t.kind == "word" and t.index not in self.used and self.noun(t) not in self.tool.own
        }
        # "4 inches": read only for a tool with a parameter named for a unit
        units = "unit" in self.tool.param_words and any(
            t.kind in NUMERIC and self._content(self.by_index.get(t.index + 1)) for t in self.tokens
        )
        # (no value is taken back before certain(): the free parameters are those with no argument)
        for param, own in zip(self.tool.params, self.tool.unbound_words, strict=True):
            if param.name in self.arguments:
                continue
            if own and all(w in words for w in own):
                self.unsure.add(param.name)
            elif param.kind == "flag" and any(w in words for w in own if w not in FLAG_NOISE):
                self.unsure.add(param.name)  # "toll roads avoided": a flag's word, but not said how
            elif param.examples & words:
                self.unsure.add(
                    param.name
                )  # "a vegan menu": a word its description gives as an example
            elif units and "unit" in param.words:
                self.unsure.add(param.name)  # "4 inches" says the unit its parameter asks
