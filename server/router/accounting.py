"""A run accounts for the whole turn: the last binding pass, which reads what the others left.

Each content word of a clause is consumed by the choice of tool (its verb, the tool's own words) or
by an argument. A word left over that says what a parameter of the tool still free takes (a word of
its name, a word of one of the values its schema writes out or gives as examples), or a value the
schema writes out that a list left out, is something the turn asked that the run would drop: that
parameter is asked for, so the plan names what it could not place rather than run without it. A mixin
of binding.Binder.
"""

from __future__ import annotations

from server.router import lexicon as lx
from server.router.canonical import value_words, written
from server.router.catalogue import CatalogueTool, Param
from server.router.names import singular
from server.router.state import BindingState
from server.router.tokens import Token

_VALUES = frozenset({"number", "decimal", "money", "date", "quoted"})


def _holds(param: Param, kind: str) -> bool:
    """Whether a parameter takes a value of this token kind: a number, a date, a quoted text."""
    if kind == "date":
        return param.kind == "time" or param.date_format is not None
    if kind == "quoted":
        return param.type == "string" and param.kind in ("text", "name")
    return param.type in ("number", "integer")


class AccountingBinding(BindingState):
    """The whole-turn pass of the Binder (see binding.py)."""

    def _left_words(self) -> list[str]:
        """The content words of the clause that neither the verb, the tool's own words nor a value took."""
        tool = self.tool
        return [
            self.noun(t)
            for t in self.tokens
            if t.kind == "word"
            and t.index not in self.used
            and len(t.norm) > 2
            and t.norm.isalpha()
            and t.norm not in self.function
            and self.noun(t) not in tool.own
            and singular(t.norm) not in tool.name_words
        ]

    def _value_words(self, param: Param) -> set[str]:
        """The words of the values a parameter's schema writes out or gives as examples."""
        values = (*param.enum, *param.listed, *param.example_values)
        return {singular(w) for v in values for w in value_words(v, self.language) if len(w) > 2}

    def _values_left(self) -> None:
        """A number, date or quote the turn states that no parameter took: a year for a free parameter
        named for one is asked for there; one beside a value of its kind the tool already holds is two
        values for one place, named back unplaced rather than dropped."""
        for token in self.tokens:
            if token.kind not in _VALUES or token.index in self.used:
                continue
            if token.kind != "quoted" and (self._date_part(token) or self._in_name(token)):
                continue
            year = (
                token.kind == "number" and len(token.text) == 4 and token.text[:2] in ("19", "20")
            )
            years = [p for p in self.free() if year and "year" in p.words and p.kind != "flag"]
            if len(years) == 1 and years[0].type in ("string", "integer"):
                self.put(years[0], token.text, "turn", token)  # "films from 2019": the one year
                continue
            if years:
                self.unsure.update(p.name for p in years)
                continue
            held = [
                p
                for p in self.tool.params
                if self.sources.get(p.name) == "turn" and _holds(p, token.kind)
            ]
            if held:
                self.unplaced.append(token.text)

    def _names_left(self) -> None:
        """A capitalised word no pass took, written mid-sentence before a word of content ("some
        Hillbilly songs"): a value the turn states. The free parameters that take text are asked for."""
        for token in self.tokens:
            after = self.by_index.get(token.index + 1)
            before = self.by_index.get(token.index - 1)
            if (
                token.index not in self.used
                and self._capital(token)
                and not self._capital(before)
                and after is not None
                and after.text[:1].islower()
                and token.norm.isalpha()
                and not token.text.isupper()
                and self.noun(token) not in self.tool.own
                and self._content(after)
            ):
                takers = [
                    p.name
                    for p in self.free()
                    if p.type == "string" and p.kind in ("text", "name", "choice") and not p.formats
                ]
                self.unsure.update(takers)
                return

    def accounted(self) -> None:
        tool = self.tool
        if not tool.params:
            return
        self._values_left()
        self._names_left()
        left = self._left_words()
        if not left:
            return
        # a word that names a parameter with a value is that value's label ("10 years", "past 10 matches")
        bound = {w for p in tool.params if p.name in self.arguments for w in p.words}
        left = [w for w in left if not self._overlap([w], bound)]
        for param, own in zip(tool.params, tool.unbound_words, strict=True):
            if param.name in self.arguments and not (
                param.type == "array" and param.enum and self.sources.get(param.name) == "turn"
            ):
                continue
            if param.name in self.arguments:
                # a list of named values that took some: a word of another of its values was dropped
                taken = set(value_words(self.arguments[param.name], self.language))
                words = self._value_words(param) - {singular(w) for w in taken} - param.described
            else:
                words = {w for w in own if len(w) > 2 and w not in lx.NAME_ADJECTIVES}
                words |= self._value_words(param)
            if words and (
                not words.isdisjoint(left)
                or any(self._overlap([w], words) for w in left if len(w) >= 4)
            ):
                self.arguments.pop(param.name, None)
                self.sources.pop(param.name, None)
                self.unsure.add(param.name)


def taker_of_known(
    chosen: list[CatalogueTool],
    candidates: list[CatalogueTool],
    tokens: list[Token],
    known: dict[str, tuple[str, ...]],
    language: str,
) -> list[CatalogueTool]:
    """A value the host knows (a member's handle) that the turn names is placed by the one tool that
    takes it: "show me ana's profile" is view_member's, not my_profile's, which takes no handle.
    Returns the tool that takes it where the chosen one cannot (or none was chosen); [] to keep."""
    if not known or (
        chosen and any(p.name in known or p.kind in ("text", "name") for p in chosen[0].params)
    ):
        return []  # the chosen tool takes it, as a handle or in its text ("search the directory for ana")
    named = [name for name, values in known.items() if written(tokens, values, set(), language)]
    if not named:
        return []
    takers = [t for t in candidates if any(p.name in named for p in t.params)]
    return takers if len(takers) == 1 else []
