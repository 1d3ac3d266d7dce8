"""What a turn dictates to be written: the words after a colon or a verb of saying ("add to my
briefing: I am away in May", "my notes should say I work remotely"). It is one value, whole, for the
one parameter that takes a sentence (text, message, note …); a tool with no such parameter cannot
place it, and the plan does not run without it. A mixin of binding.Binder.
"""

from __future__ import annotations

from server.router.catalogue import TEXT_NAMES
from server.router.phrases import SHORT_TEXT
from server.router.state import BindingState
from server.router.tokens import Token, joined

# Words after which the rest of a clause is what is to be said
_SAYING = frozenset({":", "say", "says", "saying", "read", "dizer", "diga", "dizendo"})
_THAT = frozenset({"that", "que"})


class DictationBinding(BindingState):
    """The dictation pass of the Binder (see binding.py)."""

    def _statement(self, after: int) -> tuple[list[Token], Token | None]:
        """The words after the first colon or verb of saying past the clause's verb, when they run
        whole to the clause's end and hold a word of content, and the word that opened them;
        ([], None) where there is none."""
        tokens = self.tokens
        for i, token in enumerate(tokens):
            if token.index <= after or token.norm not in _SAYING or i + 1 >= len(tokens):
                continue
            if token.norm == ":" and not (
                i > 0
                and (tokens[i - 1].index == after or self.noun(tokens[i - 1]) in self.tool.own)
            ):
                continue  # a colon says what follows is dictated only right after the verb or the thing
            rest = [t for t in tokens[i + 1 :] if t.norm not in (".", "!", "?")]
            if rest and rest[0].norm in _THAT and token.norm != ":":
                rest = rest[
                    1:
                ]  # "say that I work remotely": what is said, not the word that opens it
            if (
                len(rest) >= 2
                and all(t.index not in self.used for t in rest)
                and any(t.kind == "word" and t.norm not in self.function for t in rest)
            ):
                return rest, token
            return [], None
        return [], None

    def statement(self, after: int) -> None:
        """The statement, whole, to the one free parameter that takes a sentence; else noted unplaced."""
        self.unplaced = []
        words, opener = self._statement(after)
        if not words or opener is None:
            return
        takers = [
            p
            for p in self.free("text")
            if p.name in TEXT_NAMES and p.name not in SHORT_TEXT and p.type == "string"
        ]
        if len(takers) == 1:
            self.put(takers[0], joined(words), "turn", opener, *words)
        elif not takers and opener.norm != ":":
            # "my briefing should say I work remotely": words to write, and nothing here writes them
            self.unplaced.append(joined(words))
