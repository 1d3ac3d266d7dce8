"""Labels: the words that name a value beside it ("initial velocity of 10", "a = 1", "4 light
years"), and the one parameter a label names. A mixin of binding.Binder, read by its number,
identifier and kind passes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, TypeGuard

from server.router.catalogue import Param
from server.router.certainty import OF
from server.router.name_runs import CONNECTORS
from server.router.reader import Token
from server.router.selection import stem_shared
from server.router.state import BindingState


class LabelBinding(BindingState):
    """Label passes of the Binder (see binding.py)."""

    def _content(self, token: Token | None) -> TypeGuard[Token]:
        return (
            token is not None
            and token.kind == "word"
            and token.norm not in self.function
            and token.norm not in CONNECTORS
        )

    def left_label(self, token: Token) -> list[str]:
        """The words naming a value just before it: "initial velocity of 10", "a = 1"."""
        equals, name = self.by_index.get(token.index - 1), self.by_index.get(token.index - 2)
        if (
            equals is not None
            and equals.norm in ("=", ":")
            and name is not None
            and name.kind == "word"
            and len(name.norm) == 1
        ):
            return [
                name.norm
            ]  # a = 1, x: 3: a one-letter name and its value, even a letter that is a word
        i = token.index - 1
        skipped = 0
        while (
            i in self.by_index
            and self.by_index[i].norm in CONNECTORS
            and skipped < 2
            and (self.by_index[i].kind == "word" or self.by_index[i].norm in ("=", ":"))
        ):
            i -= 1
            skipped += 1
        label: list[str] = []
        while self._content(self.by_index.get(i)) and len(label) < 3:
            label.insert(0, self.noun(self.by_index[i]))
            i -= 1
            if (
                label
                and i in self.by_index
                and self.by_index[i].norm in OF
                and self._content(self.by_index.get(i - 1))
            ):
                i -= 1  # "year of construction is 1990": a label of two nouns

        before = self.by_index.get(i)
        if (
            label
            and before is not None
            and before.norm in ("and", "e", ",")
            and self._content(self.by_index.get(i - 1))
        ):
            return []  # "base and height as 6 …": one of a list of labels, not this value's alone
        if (
            not label
            and skipped == 0
            and i in self.by_index
            and self.by_index[i].kind == "word"
            and len(self.by_index[i].norm) == 1
        ):
            label = [self.by_index[i].norm]  # a=1: a one-letter name before its value
        return label

    def right_label(self, token: Token) -> list[str]:
        nxt, then = self.by_index.get(token.index + 1), self.by_index.get(token.index + 2)
        if not self._content(nxt):
            return []
        return [self.noun(nxt)] + (
            [self.noun(then)] if self._content(then) else []
        )  # "4 light years"

    @staticmethod
    def _overlap(label: list[str], words: Iterable[str]) -> int:
        """How many of the label's words name one of these: as it is, by its start or its stem
        ("accelerated at 4": acceleration; "atmospheric pressure" names atm_pressure)."""
        n = 0
        for w in label:
            if w in words:
                n += 1
            elif len(w) >= 4:
                for x in words:
                    if (
                        x.startswith(w)
                        or stem_shared(x, w)
                        or (3 <= len(x) <= 4 < len(w) - 3 and w.startswith(x))
                    ):
                        n += 1
                        break
        return n

    def _best(
        self, label: list[str], params: list[Param], describe: bool = False
    ) -> Param | None | Literal[False]:
        """The one parameter a label names; False where two tie (unsure), None where none does."""
        if not label:
            return None
        scores = []
        for param in params:
            words = param.described if describe else param.words
            score = self._overlap(label, words)
            if score:
                # "reference sequence" names reference_sequence before sequence; "sequence" the reverse
                scores.append(((score, 0 if describe else score - len(set(words))), param))
        if not scores:
            return None
        top = max(s for s, _ in scores)
        best = [p for s, p in scores if s == top]
        return best[0] if len(best) == 1 else False
