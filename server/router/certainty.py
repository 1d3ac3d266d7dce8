"""Binding passes that keep a run to what the router is sure of: values written as their parameter's
description asks (formats.py), values the turn gives that no parameter took, words that narrow the
tool's thing that nothing carries, days and years that are a date's parts, numbers that grade the
thing rather than count it, and one-word examples the description gives. A mixin of binding.Binder.
"""

from __future__ import annotations

import re
from typing import TypeGuard

from server.router import lexicon as lx
from server.router.catalogue import ID_NAMES, Param
from server.router.formats import fits
from server.router.names import singular, split_words
from server.router.reader import Token
from server.router.selection import stem_shared
from server.router.state import BindingState

NUMERIC = ("number", "decimal", "money", "ordinal")
_LEFT_KINDS = frozenset({"quoted", "date", *NUMERIC})  # values a parameter should have taken
MONTHS = lx.MONTHS
OF = frozenset({"of", "de", "do", "da", "dos", "das"})
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


class CertaintyBinding(BindingState):
    """Certainty passes of the Binder (see binding.py)."""

    def _date_part(self, token: Token) -> bool:
        """A day written beside a month's name: "the 9th of March", "March 8th", "2 de março"."""
        after, then = self.by_index.get(token.index + 1), self.by_index.get(token.index + 2)
        before = self.by_index.get(token.index - 1)
        if after is not None and after.norm in MONTHS:
            return True
        if after is not None and after.norm in OF and then is not None and then.norm in MONTHS:
            return True
        if (
            token.kind == "number"
            and len(token.text) == 4
            and token.text.isdigit()
            and 1000 <= int(token.text) <= 2999
        ):
            # "the 2023 1st of March", "April 22nd 2023": a year beside a month's name
            return any(
                self.by_index[i].norm in MONTHS
                for i in range(token.index - 3, token.index + 4)
                if i in self.by_index and i != token.index
            )
        return token.kind == "ordinal" and before is not None and before.norm in MONTHS

    def _in_name(self, token: Token) -> bool:
        """A number written against a capitalised word other than a sentence's first: part of a name."""
        if token.kind != "number":
            return False
        before, after = self.by_index.get(token.index - 1), self.by_index.get(token.index + 1)
        then = self.by_index.get(token.index + 2)
        # "Century 20", "Windows 10": a name, then its number (not a label such as ID, a month or a unit after it)
        if self._capital(before) and len(before.text) > 3 and before.norm not in ID_NAMES:
            return True
        # "540 El Camino Real": a number that opens a name of several capitalised words
        return self._capital(after) and self._capital(then)

    def _capital(self, token: Token | None) -> TypeGuard[Token]:
        if (
            token is None
            or token.kind != "word"
            or not token.text[:1].isupper()
            or token.index == self.first_word
            or token.norm in MONTHS
            or token.norm in lx.TIME_WORDS[self.language]
            or token.norm in self.function
        ):
            return False
        before = self.by_index.get(token.index - 1)
        return before is None or before.norm not in (".", "!", "?")

    def _counts_next(self, token: Token) -> bool:
        """A number right before a plural noun counts it ("10 times", "3 tickets"): it is no id."""
        after = self.by_index.get(token.index + 1)
        return (
            self._content(after)
            and not after.glued
            and after.norm.isalpha()
            and singular(after.norm) != after.norm
        )

    def _counts_other(self, token: Token, param: Param) -> bool:
        """Whether a lone number and the noun after it qualify the tool's thing as one modifier that
        the parameter does not name: "a three star hotel" is not number_of_rooms."""
        after, then = self.by_index.get(token.index + 1), self.by_index.get(token.index + 2)
        if (
            not self._content(after)
            or after.glued
            or after.norm in lx.TIME_WORDS[self.language]
            or after.norm in lx.NAME_ADJECTIVES
            or after.norm in lx.EVALUATIVES
            or then is None
            or singular(then.norm) not in self.tool.things
        ):
            return False
        noun = self.noun(after)
        return (
            noun not in param.words
            and noun not in param.described
            and not any(
                stem_shared(noun, w) or w.startswith(noun) or noun.startswith(w)
                for w in param.words
                if len(w) > 3
            )
        )

    def examples(self) -> None:
        """A word of the turn that the description gives as one of its parameter's examples ("a simple
        piano melody", "e.g. 'Piano'"): that parameter's value, where one word names one parameter."""
        if not self.tool.exemplified:
            return
        tool_words = self.tool.own
        claimed: list[tuple[Param, list[Token]]] = []
        for param in self.free():
            if param.type != "string" or not param.example_values:
                continue
            folded = {v.lower() for v in param.example_values}
            hits = [
                t
                for t in self.tokens
                if t.kind == "word"
                and t.index not in self.used
                and t.norm in folded
                and singular(t.norm) not in tool_words
            ]
            if hits:
                claimed.append((param, hits))
        taken = [t.index for _, hits in claimed for t in hits]
        for param, hits in claimed:
            if len({t.norm for t in hits}) == 1 and all(taken.count(t.index) == 1 for t in hits):
                self.put(param, hits[0].text, "turn", *hits)

    def certain(self) -> None:
        """A value from the turn that is not written as its parameter asks (the format its description
        names, a number for a number) is taken back and asked for: converting it would be a guess."""
        for name in [n for n, source in self.sources.items() if source == "turn"]:
            param = self.tool.param(name)
            value = self.arguments[name]
            if param is None:
                continue
            wrong = bool(param.formats) and not fits(value, param.formats)
            if param.type in ("number", "integer") and not _NUMBER.fullmatch(value):
                wrong = True
            if split_words(param.name)[-1:] == ["year"] and value.isdigit() and len(value) != 4:
                wrong = True  # "from '19": a year written without its century is not sure
            if wrong:
                del self.arguments[name], self.sources[name]
                self.unsure.add(name)

    def values_left(self) -> None:
        """A value the turn gives that no parameter took (a quoted text, a date) while parameters that
        could take it are still free: the plan would run without something the turn asked, so it asks."""
        if self.kinds.isdisjoint(_LEFT_KINDS):
            return
        left = [t for t in self.tokens if t.kind in _LEFT_KINDS and t.index not in self.used]
        if not left:
            return
        for token in left:
            if token.kind == "quoted":
                takers = [
                    p for p in self.free() if p.type in ("string", "array") and p.kind != "flag"
                ]
                quoted = {t.text for t in self.tokens if t.kind == "quoted"}
                for param in [
                    p
                    for p in self.tool.params
                    if p.kind in ("text", "name")
                    and p.type == "string"
                    and self.sources.get(p.name) == "turn"
                    and self.arguments[p.name] not in quoted
                ]:
                    # "statistics of 'Zelda' on Switch": an unquoted word took the place the quote was for
                    del self.arguments[param.name], self.sources[param.name]
                    takers.append(param)
            elif token.kind == "date":
                takers = [p for p in self.free() if p.kind == "time" or p.date_format]
            elif self._in_name(token):
                continue  # "Windows 11": the name's, asked for with the name
            else:
                year = (
                    token.text.isdigit()
                    and len(token.text) == 4
                    and 1000 <= int(token.text) <= 2999
                )
                takers = [
                    p
                    for p in self.free()
                    if p.type in ("number", "integer")
                    or p.kind == "identifier"
                    or (year and (p.kind == "time" or p.date_format))
                ]  # "2023 .10.01": a date's year
            self.unsure.update(p.name for p in takers)

    def restriction_left(self) -> None:
        """ "list all openai servers": a word that narrows the thing the tool is about, right before the
        turn names it, that neither the tool's name nor any value took. Running would drop it; the
        parameters that could carry it are asked for (a kind already chosen is asked about again)."""
        if not self.tool.nouns:
            return
        head = self.tool.nouns[0]
        first = head[0]  # a word and its singular start alike (names.singular): a cheap test first
        named = [
            t
            for t in self.tokens
            if t.kind == "word" and t.norm[:1] == first and singular(t.norm) == head
        ]
        if not named:
            return
        tool = self.tool
        for token in named:
            before = self.by_index.get(token.index - 1)
            if (
                not self._content(before)
                or before.index in self.used
                or before.index <= self.first_word
                or singular(before.norm) in tool.own
                or singular(before.norm) in tool.name_words
                or singular(before.norm) in tool.param_words
                or before.norm in lx.NAME_ADJECTIVES
                or before.norm in lx.EVALUATIVES
                or not before.norm.isalpha()
                or before.norm.endswith("ing")
            ):
                continue
            spelled, i = "", before.index
            while (
                i in self.by_index
                and self.by_index[i].kind == "word"
                and self.by_index[i].text[:1].isupper()
            ):
                spelled, i = self.by_index[i].norm[0] + spelled, i - 1
            if spelled == head:
                continue  # "the Body Mass Index (BMI)": the words the thing's abbreviation spells out
            takers = [
                p
                for p in self.tool.params
                if p.type == "string"
                and p.kind in ("text", "choice", "name")
                and (
                    p.name not in self.arguments
                    or (p.kind == "choice" and self.sources.get(p.name) == "turn")
                )
            ]
            for param in takers:
                self.arguments.pop(param.name, None)
                self.sources.pop(param.name, None)
                self.unsure.add(param.name)
