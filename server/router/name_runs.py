"""Where a whole value begins and ends in a turn: a proper name ("Yellowstone National Park",
"Washington D.C.", "Denver, Colorado"), a code (rs6034464, AAPL), a domain or quoted text. A
mixin of binding.Binder under the phrase passes (phrases.py), which bind what it finds.
"""

from __future__ import annotations

import re

from server.router import lexicon as lx
from server.router.reader import Token
from server.router.state import BindingState

# Words between a label and its number: "height of 5", "a = 1", "rate is 8", "altura de 5".
CONNECTORS = frozenset({"of", "is", "at", "be", "equal", "equals", "to", "the", "a", "an", "was", "are",
                        "de", "do", "da", "e", "igual", "em", "com", "por", "with", "for", "about", "around",
                        "approximately", "roughly", "by", "as", "como", "=", ":"})
_DIGIT = re.compile(r"\d")
# Tokens that are a whole value by themselves: a phrase of one token
WHOLE_VALUES = frozenset({"quoted", "domain", "email", "url", "handle"})
# Small words inside a name: "Museum of Art", "São José dos Campos".
NAME_LINKS = frozenset({"of", "de", "do", "da", "dos", "das"})
# Words that open a new phrase after a name: prepositions and participles ("Sydney to Melbourne using").
OPENERS = {"en": frozenset({"using", "via", "during", "within", "near", "through", "between", "after", "before",
                            "since", "until", "till", "over", "under", "per", "without", "located", "based",
                            "avoiding", "including", "excluding", "starting", "ending", "versus", "vs", "against",
                            "toward", "towards", "across", "beside", "besides", "except", "like", "unlike"}),
           "pt-BR": frozenset({"usando", "via", "durante", "perto", "entre", "apos", "antes", "desde", "ate", "sem",
                               "incluindo", "excluindo", "evitando", "contra", "sobre", "pelo", "pela"})}
PARTICIPLES = {"en": ("ing",), "pt-BR": ("ando", "endo", "indo")}
ADVERBS = {"en": ("ly",), "pt-BR": ("mente",)}  # "on PC globally": an adverb opens no part of the name
TIME_MODIFIERS = frozenset({"next", "this", "last", "coming", "past", "proximo", "proxima", "ultimo", "ultima",
                            "passado", "passada"})


def opens(token: Token) -> bool:
    """Whether a token can open a whole value: not a word that starts in lowercase with no digit."""
    text = token.text
    return not (
        token.kind == "word" and text[:1].islower() and (text.isalpha() or not _DIGIT.search(text))
    )


def _initial(token: Token | None, glued: bool = False) -> bool:
    """A single capital letter, as in the initials D.C. and U.S."""
    return token is not None and token.kind == "word" and len(token.text) == 1 and token.text.isupper() \
        and (token.glued or not glued)


class NameRuns(BindingState):
    """Whole values as runs of tokens, each found once per start (the Binder's _phrases)."""

    def phrase(self, start: int) -> list[Token] | None:
        """A whole value from index `start`: a proper name ("Yellowstone National Park"), a code
        (rs6034464, AAPL), a domain or quoted text. None where the phrase runs on into lowercase
        words ("British pounds"): then it is not a whole value."""
        if start in self._phrases:
            return self._phrases[start]
        token = self.by_index.get(start)
        if token is None or not opens(token):
            self._phrases[start] = None  # a lowercase word opens no name (the common case, decided cheaply)
            return None
        run = self._phrase(start)
        self._phrases[start] = run
        return run

    def _phrase(self, start: int, open_end: bool = False) -> list[Token] | None:
        token = self.by_index.get(start)
        if token is None:
            return None
        if token.kind in WHOLE_VALUES:
            return [token]
        if self._opens_no_name(token, start):
            return None
        if _DIGIT.search(token.text) or (token.text.isupper() and len(token.text) > 1):
            run = [token]
        elif token.text[:1].isupper():
            if token.norm in lx.TIME_WORDS[self.language] or token.norm in lx.MONTHS:
                return None  # "Friday", "April": a time, not a name
            if self._inside_name(token):
                return None  # "Art" of "Metropolitan Museum of Art" is not a name of its own
            run = self._capitalised_run(token, start)
        else:
            return None
        run = self._with_region(run)
        if open_end or run[-1].text.endswith(("'s", "’s")):
            return run  # a possessive ends the name ("Ronaldo's matches")
        if self._runs_on(self.by_index.get(run[-1].index + 1)):
            # "British pounds" runs on ("Amazon stock": a name, then the tool's thing);
            # "Melbourne using", "York avoiding" open a new phrase
            return None
        return run

    def _opens_no_name(self, token: Token, start: int) -> bool:
        """A token no name starts at: not a word, the turn's first word, a sentence's first function
        word, or the second half of a contraction."""
        if token.kind != "word" or token.index == self.first_word:
            return True
        if (ender := self.by_index.get(start - 1)) is not None and ender.norm in ".!?" and token.norm in self.function:
            return True  # "… working on. Can you …": a sentence's first word, a function word, is no name
        before = self.by_index.get(start - 1)
        # the second word of a contraction read as two ("What's": what is)
        return before is not None and before.text == token.text and before.kind == "word"

    def _capitalised_run(self, token: Token, start: int) -> list[Token]:
        """The capitalised words from `token` on, with the initials and links a name holds."""
        run = [token]
        i = start + 1
        while i in self.by_index:
            nxt = self.by_index[i]
            if nxt.kind == "word" and nxt.text[:1].isupper():
                if run[-1].norm == "." and (then := self.by_index.get(i + 1)) and then.text[:1].islower():
                    break  # "Liverpool F.C. Include its statistics": a new sentence after the initials
                run.append(nxt)
            elif nxt.norm == "." and nxt.glued and _initial(run[-1]) and (
                    _initial(self.by_index.get(i + 1), glued=True) or (len(run) > 1 and run[-2].norm == ".")):
                run.append(nxt)  # the initials of "Washington D.C.", "U.S."
            elif nxt.kind == "word" and nxt.norm in NAME_LINKS and \
                    self.by_index.get(i + 1) is not None and self.by_index[i + 1].text[:1].isupper():
                run.append(nxt)
            else:
                break
            i += 1
        return run

    def _with_region(self, run: list[Token]) -> list[Token]:
        """A short name followed by a comma and a capitalised word takes its region along."""
        comma, more = self.by_index.get(run[-1].index + 1), self.by_index.get(run[-1].index + 2)
        if comma is not None and comma.norm == "," and more is not None and more.kind == "word" \
                and more.text[:1].isupper() and more.norm not in self.function and len(run) < 4 \
                and not _DIGIT.search(run[0].text):
            run = run + [comma, more]  # "Denver, Colorado", "Paris, France", "Manhattan, New York"
            while run[-1].index + 1 in self.by_index and self.by_index[run[-1].index + 1].kind == "word" \
                    and self.by_index[run[-1].index + 1].text[:1].isupper():
                run.append(self.by_index[run[-1].index + 1])
        return run

    def _runs_on(self, after: Token | None) -> bool:
        """Whether the word after a name continues it in lowercase, so the name is no whole value."""
        return after is not None and after.kind == "word" and after.norm not in self.function \
            and after.norm not in CONNECTORS and not after.text[:1].isupper() \
            and after.norm not in OPENERS[self.language] and not after.norm.endswith(PARTICIPLES[self.language]) \
            and after.norm not in lx.TIME_WORDS[self.language] \
            and after.norm not in TIME_MODIFIERS and not after.norm.endswith(ADVERBS[self.language]) \
            and self.noun(after) not in self.tool.things

    def _inside_name(self, token: Token) -> bool:
        before = self.by_index.get(token.index - 1)
        if before is not None and before.norm in NAME_LINKS:
            before = self.by_index.get(token.index - 2)
        return before is not None and before.kind == "word" and before.text[:1].isupper() \
            and before.index != self.first_word
