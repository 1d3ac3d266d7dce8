"""Binding values by the kind of parameter: values the application knows or the description lists,
enum values, flags, the unit the turn writes, list literals, spans of time, years, numbers labelled
for text. A mixin of binding.Binder.
"""

from __future__ import annotations

import json
from functools import lru_cache

from server.router import lexicon as lx
from server.router.canonical import misspelt, value_words, written
from server.router.catalogue import Param
from server.router.names import singular, split_words
from server.router.reader import Token, fold
from server.router.rows import ARTICLES
from server.router.state import BindingState, Senses

FLAG_NOISE = frozenset(
    {
        "is",
        "include",
        "use",
        "with",
        "has",
        "enable",
        "show",
        "get",
        "return",
        "should",
        "allow",
        "only",
        "incluir",
        "usar",
        "com",
    }
)
NEGATORS = frozenset({"without", "excluding", "exclude", "no", "not", "sem", "excluindo", "nao"})
INCLUDERS = frozenset(
    {"with", "including", "include", "includes", "plus", "com", "incluindo", "incluir"}
)


@lru_cache(maxsize=8192)
def _parts(value: str) -> tuple[frozenset[str], frozenset[str]]:
    """A value's words, and the same singular: read once per value, not once per turn."""
    parts = frozenset(split_words(fold(value)))
    return parts, frozenset(singular(w) for w in parts)


def _named(value: str, words: set[str], small: set[str]) -> bool:
    """Whether the turn names a value by all its words ("gluten free", "Wi-Fi"); a small word as typed."""
    parts, singulars = _parts(value)
    return bool(parts) and (parts <= words or singulars <= words or value in small)


DURATION_WORDS = frozenset(
    {"duration", "period", "timeframe", "span", "duracao", "periodo", "prazo"}
)
TIME_UNITS = frozenset(
    {
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "year",
        "segundo",
        "minuto",
        "hora",
        "dia",
        "semana",
        "mese",
        "mes",
        "ano",
    }
)


def _shares(token: Token, value: str) -> bool:
    """Whether a turn's word is a word of a value, singular or not ("toll" of "tolls")."""
    mine = {w for part in split_words(token.norm) for w in (part, singular(part))}
    return bool(mine & {w for part in split_words(fold(value)) for w in (part, singular(part))})


class KindBinding(BindingState):
    """Kind passes of the Binder (see binding.py)."""

    def known_values(self) -> None:
        """A parameter with values the application knows takes only one of them, named in the turn."""
        if not self.known and not self.tool.knows:
            return
        for param in self.free():
            host = self.known.get(param.name)
            known = host or param.known or param.listed
            if not known:
                continue
            # the values written whole; a misspelt one only of those the description lists
            if param.type == "array":
                # a list takes its values one word each here; a value of several words is no list
                known = tuple(v for v in known if len(value_words(v, self.language)) == 1)
            found = written(self.tokens, known, self.used, self.language)
            if not found and not host and not param.known:
                found = misspelt(self.tokens, known, self.used, self.language)
            if len(found) == 1:
                value, run = next(iter(found.items()))
                self.put(param, value, "turn", *run)
            elif found:
                self.unsure.add(param.name)

    def choices(self, senses: Senses) -> None:
        """An enum value the turn names, by its words or a word of the same sense; two named is unsure."""
        # the turn's words, singular too, and the parts of hyphenated ones ("Wi-Fi": wi, fi); a value that
        # is one of the language's small words ("A", "no") is only named as typed
        if not self.tool.enums or not any(
            p.enum and p.kind in ("choice", "array") for p in self.free()
        ):
            return
        typed = [t for t in self.tokens if t.kind == "word"]
        words: set[str] = set()
        for t in typed:
            norm = t.norm
            words.add(norm)
            words.add(singular(norm))
            if not norm.isalpha():  # a word of letters alone splits into itself (no camelCase)
                words.update(split_words(norm))
        words -= self.function  # (no small word is one of the turn's words)
        small = {t.text for t in typed if t.norm in self.function}
        same = {fold(means) for _, (means, positive) in senses if positive}
        for param in self.free("choice"):
            if same:
                named = [v for v in param.enum if _named(v, words, small) or fold(v) in same]
            else:
                named = [v for v in param.enum if _named(v, words, small)]
            near = misspelt(self.tokens, param.enum, self.used, self.language) if not named else {}
            if len(near) == 1:
                (value, run), *_ = near.items()
                self.put(param, value, "turn", *run)
                continue
            if len(near) > 1:
                self.unsure.add(param.name)
            if len(named) == 1:
                parts = split_words(fold(named[0]))
                token = next((t for t in self.tokens if t.norm in parts), None)
                self.put(param, named[0], "turn", *([token] if token else []))
            elif named:
                self.unsure.add(param.name)
        for param in [p for p in self.free("array") if p.enum]:
            # a list whose items are named values: the ones the turn names, in the order it names them
            named = [v for v in param.enum if _named(v, words, small)]
            tokens = [t for t in typed if any(_shares(t, v) for v in named)]
            if named and tokens:
                order = {
                    v: min([t.index for t in tokens if _shares(t, v)], default=len(self.tokens))
                    for v in named
                }
                self.put(param, json.dumps(sorted(named, key=lambda v: order[v])), "turn", *tokens)

    def flags(self, senses: Senses) -> None:
        for param in self.free("flag"):
            for token, (means, same) in senses:
                if fold(means) == fold(param.name):
                    self.put(param, "true" if same else "false", "turn", token)
                    break
            else:
                # "including human impact", "without tolls": the flag's words, right after a word that
                # includes or excludes; its words anywhere else are only a mention, asked about
                words = [w for w in param.words if w not in FLAG_NOISE]
                hits = [t for t in self.tokens if t.kind == "word" and singular(t.norm) in words]
                if not words or len({singular(t.norm) for t in hits}) != len(set(words)):
                    continue
                before = self.by_index.get(hits[0].index - 1)
                while (
                    before is not None and before.norm in ARTICLES
                ):  # "including the precipitation"
                    before = self.by_index.get(before.index - 1)
                named = (
                    len(param.words) > 1
                    and param.words[0] not in FLAG_NOISE
                    and any(
                        [singular(t.norm) for t in self.tokens[i : i + len(param.words)]]
                        == list(param.words)
                        for i in range(len(self.tokens))
                        if singular(self.tokens[i].norm) == param.words[0]  # where it starts
                    )
                )
                if before is not None and before.norm in NEGATORS:
                    self.put(param, "false", "turn", *hits)
                elif (before is not None and before.norm in INCLUDERS) or named:
                    # "with verdict"; or the flag's whole name, in its order: "a direct flight", "avoid tolls"
                    self.put(param, "true", "turn", *hits)
                else:
                    self.unsure.add(param.name)

    def stated_unit(self) -> list[Token]:
        """The one unit the turn writes after its numbers ("4 inches", "6cm and 10cm"); none where two differ."""
        after = [
            self.by_index.get(t.index + 1) for t in self.tokens if t.kind in ("number", "decimal")
        ]
        units = [
            u
            for u in after
            if u is not None and self._content(u) and u.norm not in lx.TIME_WORDS[self.language]
        ]
        return units if units and len({u.norm for u in units}) == 1 else []

    def units(self) -> None:
        """A parameter named for the unit takes the one unit the turn writes after its values."""
        if "unit" not in self.tool.param_words:
            return
        for param in self.free():
            if (
                param.words == ("unit",)
                and param.type == "string"
                and not (param.enum or param.listed)
            ):
                units = self.stated_unit()
                if units:
                    self.put(param, units[0].text, "turn", *units)

    def lists(self) -> None:
        for param in self.free("array"):
            literal = next(
                (t for t in self.tokens if t.kind == "list" and t.index not in self.used), None
            )
            if literal is None:
                continue
            try:
                value = json.loads(literal.text.replace("'", '"'))
            except ValueError:
                self.unsure.add(param.name)
                continue
            if param.items == "number" and isinstance(value, list):
                value = [
                    float(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value
                ]
            self.put(param, json.dumps(value), "turn", literal)

    def durations(self) -> None:
        """ "for the last 2 weeks", "nos últimos 3 meses": a number and a unit of time, as written, for the
        one text parameter named for a span of time (duration, period, timeframe)."""
        if DURATION_WORDS.isdisjoint(self.tool.param_words):
            return
        params = [
            p
            for p in self.free()
            if p.type == "string" and not (p.enum or p.listed) and set(p.words) & DURATION_WORDS
        ]
        if len(params) != 1:
            return
        spans = [
            (t, self.by_index[t.index + 1])
            for t in self.tokens
            if t.kind == "number"
            and t.index not in self.used
            and t.index + 1 in self.by_index
            and singular(self.by_index[t.index + 1].norm) in TIME_UNITS
        ]
        if len(params) == 1 and len(spans) == 1:
            number, unit = spans[0]
            self.put(params[0], f"{number.text} {unit.text}", "turn", number, unit)

    def labelled_texts(self) -> None:
        """A number its own label gives to a text parameter: "the 2022 season", "flight number 815"."""
        params = [
            p
            for p in self.free()
            if p.type == "string" and p.kind in ("text", "name", "identifier")
        ]
        if not params or self.kinds.isdisjoint(("number", "ordinal")):
            return
        claimed: dict[str, list[Token]] = {}
        for token in self.tokens:
            if token.kind in ("number", "ordinal") and token.index not in self.used:
                best = self._best(self.left_label(token), params)
                best = best if best is not None else self._best(self.right_label(token), params)
                joined_to = [self.by_index.get(token.index + k) for k in (-1, 1)]
                if isinstance(best, Param) and any(
                    t is not None and t.kind in ("number", "decimal", "money", "ordinal")
                    for t in joined_to
                ):
                    self.unsure.add(
                        best.name
                    )  # "the 2019-2020 season": one value written as two numbers
                elif isinstance(best, Param):
                    claimed.setdefault(best.name, []).append(token)
        self.settle(
            params, claimed, lambda param, token: self.put(param, token.text, "turn", token)
        )

    def years(self) -> None:
        """ "in 2020", "no ano de 1999": a year, to the one parameter named for a year."""
        if "year" not in self.tool.param_words and "ano" not in self.tool.param_words:
            return  # no parameter is named year
        params = [
            p for p in self.free() if p.name.lower() in ("year", "ano")
        ]  # not "years", a count
        if len(params) != 1:
            return
        found = [
            t
            for t in self.tokens
            if t.kind == "number"
            and len(t.text) == 4
            and t.text.isdigit()
            and 1000 <= int(t.text) <= 2999
            and t.index not in self.used
            and self.by_index.get(t.index - 1) is not None
            and self.by_index[t.index - 1].norm
            in ("in", "year", "during", "em", "ano", "no", "durante", "for")
        ]
        if len(params) == 1 and len(found) == 1:
            self.put(params[0], found[0].text, "turn", found[0])
