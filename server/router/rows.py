"""Values written in a row and the words around them: parameters named in a row (num1, num2; x, y, z),
the start and the end of a range (from 2010 to 2015, entre 2 e 9), a city and its country or state
(in Sydney, Australia) for a city's parameter and a region's, and the words that say by what means
(by train, usando o metrô). Used by binding.py.
"""

from __future__ import annotations

import json
import re

from server.router.catalogue import Param
from server.router.names import singular
from server.router.phrases import ORIGIN_WORDS, TARGET_WORDS
from server.router.state import BindingState
from server.router.tokens import Token, joined

# The words that open and join a range: "from 2010 to 2015", "between 2 and 9", "de 2010 a 2015".
RANGES = {
    "en": frozenset({("from", "to"), ("between", "and"), ("from", "through"), ("from", "until")}),
    "pt-BR": frozenset(
        {("de", "a"), ("de", "ate"), ("entre", "e"), ("desde", "ate"), ("do", "ao"), ("da", "a")}
    ),
}
# The words between two labels and their two values: "base and height as 6 and 10"
_BEFORE_VALUES = frozenset({"as", "are", "were", "of", "=", ":", "como", "sao", "de"})
_NUMBERED = re.compile(r"(.*?)_?(\d)")


def sequences(params: list[Param]) -> list[list[Param]]:
    """Parameters named in a row, in their order: num1, num2; point_1, point_2; x, y, z; a, b, c."""
    rows: dict[str, list[tuple[int, Param]]] = {}
    for param in params:
        numbered = _NUMBERED.fullmatch(param.name)
        if numbered:
            rows.setdefault(numbered.group(1), []).append((int(numbered.group(2)), param))
        elif len(param.name) == 1 and param.name.isalpha():
            rows.setdefault("", []).append((ord(param.name.lower()), param))
    found = []
    for row in rows.values():
        row.sort(key=lambda item: item[0])
        steps = [b[0] - a[0] for a, b in zip(row, row[1:], strict=False)]
        if len(row) > 1 and all(step == 1 for step in steps):
            found.append([p for _, p in row])
    return found


def range_pair(params: list[Param]) -> tuple[Param, Param] | None:
    """The one parameter that starts a range and the one that ends it (start_year, end_year)."""
    starts = [
        p for p in params if set(p.words) & (ORIGIN_WORDS | {"min", "minimum", "lower", "low"})
    ]
    ends = [
        p for p in params if set(p.words) & (TARGET_WORDS | {"max", "maximum", "upper", "high"})
    ]
    return (
        (starts[0], ends[0])
        if len(starts) == 1 and len(ends) == 1 and starts[0] is not ends[0]
        else None
    )


def skip(tokens: dict[int, Token], i: int, words: frozenset[str]) -> int:
    while i in tokens and tokens[i].norm in words:
        i += 1
    return i


# A city's parameter and the parameter of the country or state it is in: "in Sydney, Australia".
CITY_WORDS = frozenset({"city", "town", "cidade", "municipio"})
REGION_WORDS = frozenset({"country", "state", "province", "pais", "estado", "provincia"})
MEANS = {"en": frozenset({"by", "using", "via"}), "pt-BR": frozenset({"usando", "via"})}
ARTICLES = frozenset({"a", "an", "the", "o", "os", "as", "um", "uma", "using", "usando"})
_BY = frozenset({"by", "por"})
# Who performs in a thing, after "starring", "featuring" or "with": "a movie with Fiona Reid"
PERFORMER_WORDS = frozenset(
    {"cast", "actor", "actress", "star", "starring", "performer", "elenco", "ator", "atriz"}
)
_OPENERS = _BY | {"starring", "featuring", "with", "estrelando", "com"}


class RowBinding(BindingState):
    """Row and means passes of the Binder (see binding.py)."""

    def city_and_region(self, params: list[Param], run: list[Token]) -> list[str]:
        """ "in Sydney, Australia", "em Campinas, São Paulo": a city and, after the comma, its country or
        state, for one city parameter and one region parameter. Returns the parameters it bound."""
        commas = [i for i, t in enumerate(run) if t.norm == ","]
        # its name says which, else its description ("location": "The name of the city.")
        hints = {
            p.name: set(p.words) if set(p.words) & (CITY_WORDS | REGION_WORDS) else p.described
            for p in params
        }
        city = [
            p for p in params if hints[p.name] & CITY_WORDS and not hints[p.name] & REGION_WORDS
        ]
        region = [
            p for p in params if hints[p.name] & REGION_WORDS and not hints[p.name] & CITY_WORDS
        ]
        if (
            len(params) != 2
            or len(city) != 1
            or len(region) != 1
            or len(commas) != 1
            or not 0 < commas[0] < len(run) - 1
        ):
            return []
        after = run[commas[0] + 1 :]
        if len(after) == 1 and after[0].text.isupper() and len(after[0].text) <= 3:
            return []  # "Austin, TX": an abbreviation, where the parameter may want the full name
        self._string(city[0], run[: commas[0]])
        self._string(region[0], after)
        return [city[0].name, region[0].name]

    def _in_sequence(self, params: list[Param], values: list[Token]) -> bool:
        """Values written in a row for parameters named in a row: "of 40 and 50" to num1 and num2,
        "4 and 5" to x and y; "from 2010 to 2015", "between 2 and 9" to a start and an end. Only where
        one such row takes every value and no other required parameter could take one."""
        rows = sequences(params)
        if len(values) == 2:
            pair = range_pair(params)
            opener = self.by_index.get(values[0].index - 1)
            joiner = self.by_index.get(values[0].index + 1)
            if (
                pair
                and opener is not None
                and joiner is not None
                and joiner.index + 1 == values[1].index
                and (opener.norm, joiner.norm) in RANGES[self.language]
            ):
                rows = [list(pair)]
        fits = [
            row
            for row in rows
            if len([p for p in row if p.required]) <= len(values) <= len(row)
            and all(p in row[: len(values)] for p in row if p.required)
        ]
        if len(fits) != 1:
            return False
        row = fits[0]
        if any(p.required and p not in row for p in params):
            return False
        for param, token in zip(row, values, strict=False):
            self._number(param, token)
        return True

    def _means_left(self) -> bool:
        """Whether the turn says by what means ("by train", "using public transport") in words no
        parameter took and that are not the tool's own."""
        if not self.norms & MEANS[self.language]:
            return False
        things, name_words = self.tool.things, self.tool.name_words
        for token in self.tokens:
            if token.kind == "word" and token.norm in MEANS[self.language]:
                nxt = self.by_index.get(skip(self.by_index, token.index + 1, ARTICLES))
                if (
                    nxt is not None
                    and nxt.index not in self.used
                    and self._content(nxt)
                    and singular(nxt.norm) not in things
                    and singular(nxt.norm) not in name_words
                ):
                    return True
        return False

    def between(self) -> None:
        """ "between New York and Boston", "entre Apple e Samsung": two names for the two parameters of a
        pair (origin and destination, start and end, company1 and company2), in the order written."""
        opens = {a for a, b in RANGES[self.language] if a in ("between", "entre")}
        if not self.norms & opens:
            return
        for token in self.tokens:
            if token.kind != "word" or token.norm not in opens:
                continue
            first = self.phrase(token.index + 1)
            joiner = self.by_index.get(first[-1].index + 1) if first else None
            second = (
                self.phrase(joiner.index + 1)
                if joiner is not None and joiner.norm in ("and", "e")
                else None
            )
            if not first or not second:  # no second without a first
                continue
            params = [
                p
                for p in self.free()
                if p.type == "string" and p.kind in ("text", "name", "destination")
            ]
            pair = range_pair(params)
            rows = [row for row in sequences(params) if len(row) == 2]
            pairs = ([list(pair)] if pair else []) + rows
            lists = [
                p for p in self.free("array") if p.required and p.items == "string" and not p.enum
            ]
            if len(pairs) == 1:
                self._string(pairs[0][0], first)
                self._string(pairs[0][1], second)
            elif (
                not pairs and len(lists) == 1
            ):  # "a contract between John and Alice" for its parties
                self.put(
                    lists[0],
                    json.dumps([joined(first), joined(second)], ensure_ascii=False),
                    "turn",
                    *first,
                    *second,
                )
            return

    def respectively(self, numeric: list[Param]) -> dict[int, Param]:
        """ "base and height as 6 and 10", "largura e altura de 3 e 4": two labels, then their two values,
        in the same order. Returns the values' indexes and their parameters (both labels must name one)."""
        found: dict[int, Param] = {}
        joins = ("and", "e", ",")
        for token in [t for t in self.tokens if t.norm in _BEFORE_VALUES]:
            first = self.by_index.get(token.index + 1)
            k = (
                3 if self._content(self.by_index.get(token.index + 2)) else 2
            )  # "6cm and 10cm": a unit between
            joiner, second = (
                self.by_index.get(token.index + k),
                self.by_index.get(token.index + k + 1),
            )
            label2, join, label1 = (self.by_index.get(token.index - k) for k in (1, 2, 3))
            if (
                first is None
                or joiner is None
                or second is None
                or label2 is None
                or join is None
                or label1 is None
            ):
                continue
            if (
                joiner.norm not in joins
                or join.norm not in joins
                or not self._content(label1)
                or not self._content(label2)
            ):
                continue
            if first.kind not in ("number", "decimal") or second.kind not in ("number", "decimal"):
                continue
            param1, param2 = (self._best([self.noun(label)], numeric) for label in (label1, label2))
            if isinstance(param1, Param) and isinstance(param2, Param) and param1 is not param2:
                found[first.index], found[second.index] = param1, param2
        return found

    def makers(self) -> None:
        """ "directed by Herbert Ross", "written by Ana Lee": the name after "by" goes to the parameter
        the word before "by" names (directed_by), whichever other names "by" opens in the turn; a name
        after "starring", "featuring" or "with" goes to the one parameter named for a performer (cast)."""
        if not self.norms & _OPENERS:
            return
        for token in self.tokens:
            if token.norm not in _OPENERS:
                continue
            before = self.by_index.get(token.index - 1)
            run = self.phrase(token.index + 1)
            params = [p for p in self.free() if p.type == "string" and p.kind in ("text", "name")]
            best = (
                self._best([self.noun(before)], params)
                if run and token.norm in _BY and self._content(before)
                else None
            )
            if best is None and run and token.norm not in _BY:
                cast = [p for p in params if set(p.words) & PERFORMER_WORDS]
                best = cast[0] if len(cast) == 1 else None
            if isinstance(best, Param) and run:
                self._string(best, run)
