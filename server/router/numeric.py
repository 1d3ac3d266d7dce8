"""Binding numbers: a number to the parameter its label names ("height of 5", "5 years"), a
percent to the parameter that says how it takes one, money to the one amount that names money, a
lone number to a lone numeric parameter; a number inside a name, a day of a date or a count of
something else is no value. A mixin of binding.Binder, after the row, kind and certainty passes it
reads.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Literal

from server.router import lexicon as lx
from server.router.catalogue import Param
from server.router.certainty import NUMERIC, CertaintyBinding
from server.router.kinds import KindBinding
from server.router.reader import Token
from server.router.rows import RowBinding


def numeric_text(token: Token, param: Param, language: str) -> str:
    """A number as the parameter takes it: as typed for text, plain digits for a number parameter."""
    if param.type not in ("number", "integer"):
        return token.text
    text = re.sub(r"^(R\$|US\$|\$|€|£)\s*", "", token.text)
    text = re.sub(r"(st|nd|rd|th|º|ª|o|a)$", "", text) if token.kind == "ordinal" else text
    if language == "pt-BR":
        return text.replace(".", "").replace(",", ".")
    return text.replace(",", "")


class NumberBinding(RowBinding, KindBinding, CertaintyBinding):
    """Number passes of the Binder (see binding.py)."""

    def numbers(self) -> None:
        """Numbers to the parameters their labels name; a lone number to a lone numeric parameter."""
        values = [t for t in self.tokens if t.kind in NUMERIC and t.index not in self.used]
        if not values:
            return  # no number left: nothing below binds or doubts a parameter
        numeric = [
            p
            for p in self.free()
            if p.type in ("number", "integer") or p.kind in ("amount", "count", "identifier")
        ]
        claimed, unlabelled = self._claim_numbers(values, numeric)
        self.settle(numeric, claimed, self._number)
        self._bind_unlabelled(numeric, unlabelled)

    def _claim_numbers(
        self, values: list[Token], numeric: list[Param]
    ) -> tuple[dict[str, list[Token]], list[Token]]:
        """Each number that is a value to the parameter listed for it or named by its label; the
        numbers no label names, for the passes after."""
        unlabelled = []
        claimed: dict[str, list[Token]] = {}
        listed = self.respectively(numeric)
        months = not self.norms.isdisjoint(lx.MONTHS)
        for token in values:
            if self._in_name(token):
                continue  # "540 El Camino Real", "Century 20": a number inside a name is no count
            if months and self._date_part(token):
                # "the 9th of March", "March 8th": a day of a date, never a count; a date without its year
                # is no date a parameter can be sure of
                self.unsure.update(p.name for p in self.free() if p.kind == "time" or p.date_format)
                continue
            if token.index in listed:
                claimed.setdefault(listed[token.index].name, []).append(token)
                continue
            unit = self.by_index.get(token.index + 1)
            if unit is not None and unit.kind == "word" and unit.norm in ("am", "pm", "o'clock"):
                continue  # 11 PM is a time of day, not a number
            best = self._labelled_by(token, numeric)
            if best is False:
                self.unsure.update(p.name for p in numeric)
            elif best is None:
                unlabelled.append(token)
            else:
                claimed.setdefault(best.name, []).append(token)
        return claimed, unlabelled

    def _labelled_by(self, token: Token, numeric: list[Param]) -> Param | None | Literal[False]:
        """The parameter the number's label names: the words before it, after it, then the
        parameters' descriptions; False where two tie."""
        takers = numeric
        if self._counts_next(token):
            takers = [p for p in numeric if p.kind != "identifier"]
        best = self._best(self.left_label(token), takers)
        if best is None:
            best = self._best(self.right_label(token), takers)
        if best is None:
            # by description, less words that several describe ("hotel" of a three star hotel: no room)
            label = [
                w
                for w in self.right_label(token) or self.left_label(token)
                if sum(w in p.described for p in self.tool.params) < 2
            ]
            best = self._best(label, numeric, describe=True)
        return best

    def _bind_unlabelled(self, numeric: list[Param], unlabelled: list[Token]) -> None:
        """Numbers no label names: a percent, money, a lone number, each to the one parameter that
        takes it; several numbers to a sequence; otherwise the parameters left are unsure."""
        left = [p for p in numeric if p.name not in self.arguments and p.name not in self.unsure]
        # a percent to the one parameter whose description says how it takes a percent
        percents = [t for t in unlabelled if t.text.endswith("%")]
        takers = [p for p in left if p.percent or {"percent", "percentage"} & set(p.words)]
        if len(percents) == 1 and len(takers) == 1:
            self._number(takers[0], percents[0])
            unlabelled.remove(percents[0])
            left.remove(takers[0])
        # money and decimals to the one amount parameter that names money
        money = [
            t
            for t in unlabelled
            if t.kind == "money" or (t.kind == "decimal" and not t.text.endswith("%"))
        ]
        amounts = [
            p for p in left if p.kind == "amount" and p.words and p.words[-1] in _AMOUNT_WORDS
        ]
        if len(money) == 1 and len(amounts) == 1:
            self._number(amounts[0], money[0])
            unlabelled.remove(money[0])
            left.remove(amounts[0])
        if len(unlabelled) == 1 and len(left) == 1 and (left[0].required or len(numeric) == 1):
            if self._counts_other(unlabelled[0], left[0]):
                self.unsure.add(left[0].name)  # "a three star hotel" is no count of rooms
            else:
                self._number(left[0], unlabelled[0])
        elif len(unlabelled) > 1 and self._in_sequence(left, unlabelled):
            pass
        elif unlabelled:
            self.unsure.update(p.name for p in left)

    def _number(self, param: Param, token: Token) -> None:
        unit = self.by_index.get(token.index + 1)
        if unit is not None and unit.norm in lx.MAGNITUDES and not token.text.endswith("%"):
            # "213 million", "8,5 milhões": the number the words make
            if param.type not in ("number", "integer"):
                self.unsure.add(param.name)
                return
            value = Decimal(numeric_text(token, param, self.language)) * lx.MAGNITUDES[unit.norm]
            self.put(param, format(value.normalize(), "f"), "turn", token, unit)
            return
        if (
            unit is not None
            and unit.glued
            and unit.kind == "word"
            and unit.norm not in param.described
            and not set(lx.UNIT_NAMES.get(unit.norm, ())) & param.described
            and not (self.stated_unit() and any(p.words == ("unit",) for p in self.tool.params))
        ):
            self.unsure.add(param.name)  # 6cm, 100µF: a unit the parameter does not say it takes
            return
        if token.text.endswith("%"):
            # 8% is 8 or 0.08: the parameter must say which ("as a decimal", "in percentage")
            how = param.percent or (
                "percent" if {"percent", "percentage"} & set(param.words) else None
            )
            number = numeric_text(token, param, self.language).rstrip("%")
            if how is None or param.type not in ("number", "integer"):
                self.unsure.add(param.name)
            elif how == "fraction":
                self.put(param, format((Decimal(number) / 100).normalize(), "f"), "turn", token)
            else:
                self.put(param, number, "turn", token)
            return
        self.put(param, numeric_text(token, param, self.language), "turn", token)


_AMOUNT_WORDS = frozenset(
    {
        "amount",
        "price",
        "total",
        "value",
        "sum",
        "cost",
        "fee",
        "valor",
        "quantia",
        "salary",
        "income",
        "budget",
        "payment",
        "balance",
        "principal",
        "investment",
        "loan",
    }
)
