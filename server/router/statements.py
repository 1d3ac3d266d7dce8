"""Clauses that describe rather than ask: "FMP's API provides access to income statements" tells what
something does, and no tool is meant by it. A turn pasted from a product page, a changelog or an API's
own documentation reaches a tool by sharing its words; it asks for nothing."""

from __future__ import annotations

from server.router import lexicon as lx
from server.router.reader import Clause
from server.router.verbs import find_verb

_NOT_THIRD = frozenset({"is", "has", "does", "was", "goes", "this", "its", "us", "yes", "please"})
# Words by which a turn speaks as, or to, someone: a clause with one of them may be a request however
# its verb is written ("my order shows delivered but I never got it")
_PERSONS = frozenset({"i", "me", "my", "mine", "we", "us", "our", "you", "your", "please", "pls"})
_SENTENCE_ENDS = frozenset({".", "!", "?", ";"})


def described(clause: Clause, language: str) -> bool:
    """Whether the clause only tells what something does ("the API provides access to …"): its verb in
    the third person after a word that is no function word, no word of the speaker or the addressee
    anywhere, and no later sentence of it opening with a verb ("… Get the report"). A description asks
    for nothing: no tool is meant by it."""
    verb = clause.verb
    if language != "en" or verb is None or verb.index == 0:
        return False
    surface = verb.surface.lower()
    if not surface.endswith("s") or surface.endswith("ss") or surface in _NOT_THIRD:
        return False
    tokens = clause.tokens
    before = tokens[verb.index - 1]
    if before.kind != "word" or before.norm in lx.FUNCTION_WORDS[language]:
        return False
    if any(t.norm in _PERSONS or t.norm.startswith("i'") for t in tokens):
        return False
    for i, token in enumerate(tokens[:-1]):
        if token.norm in _SENTENCE_ENDS:
            opener = find_verb(tokens, language, i + 1)
            if opener is not None and opener.index == i + 1:
                return False  # an order follows the description
    return True
