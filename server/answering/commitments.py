"""Commitments: an answer that accepts, agrees, confirms, books, reserves, schedules, signs,
commits, promises, guarantees, buys, pays or hires for someone, in English, Brazilian Portuguese or
Spanish, in any tense, person or voice. A text is read sentence by sentence (a question commits
nobody) and clause by clause, a negation carried across an enumeration ("cannot agree, accept or
book"). Three modules, one concept each: the words that commit (`commitment_words`), what defuses
one in its clause (`defusing`: a negation in scope, a hypothesis, the decision left to the member, a
generic object, an explicitly past time, a noun use), and this reading of a whole text (`commits`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from server.answering.commitment_words import DOUBLE_NEGATION, PHRASES, VERBS
from server.answering.defusing import Clause, defused, negated, phrase_defused
from server.answering.text import fold, language_of, sentences

_ENUMERATION = re.compile(r"\b(?:or|nor|ou|nem|ni)\b")
_STRONG_BREAK = re.compile(
    r"\s*[;:()\"]\s*|\s+-\s+|\b(?:but|however|yet|although|though|whereas|mas|porém|porem|contudo|entretanto|"
    r"todavia|embora|pero|aunque|sino|sin embargo)\b"
)
_WEAK_BREAK = re.compile(r"\s+\b(?:and|e|y|so|then|então|entao|entonces|luego)\b\s+")

_STARTS_VERB = re.compile(r"^(?:" + "|".join(v.pattern.pattern for v in VERBS) + ")")


def _clauses(sentence: str) -> Iterable[Clause]:
    language = language_of(sentence)
    for segment in _STRONG_BREAK.split(sentence):
        parts = [p.strip(" ,.!¡?¿'\"") for p in segment.split(",")]
        enumeration = bool(_ENUMERATION.search(segment))
        carry = False
        for part in parts:
            if not part:
                continue
            pieces = _WEAK_BREAK.split(part)
            for n, piece in enumerate(pieces):
                inherited = carry and n == 0 and bool(_STARTS_VERB.search(piece))
                yield Clause(piece.strip(), inherited, language)
            last = pieces[-1]
            carry = enumeration and (
                negated(last, language) or (carry and bool(_STARTS_VERB.search(last)))
            )


def commits(text: str, language: str = "en", who: str = "") -> bool:
    """Whether `text` commits someone, in English, Portuguese or Spanish, whatever `language` says.

    `who` is the member's handle, read as a subject ("ana books the studio")."""
    who = fold(who)
    for sentence in sentences(text):
        if sentence.endswith("?") or sentence.startswith("¿"):
            continue  # a question commits nobody
        if DOUBLE_NEGATION.search(sentence):
            return True
        if any(clause.text and _clause_commits(clause, who) for clause in _clauses(sentence)):
            return True
    return False


def _clause_commits(clause: Clause, who: str) -> bool:
    """A phrase said as a whole, or a commitment word, that nothing around it defuses."""
    for phrase in PHRASES.finditer(clause.text):
        if not phrase_defused(clause, phrase.start()):
            return True
    for verb in VERBS:
        if verb.only and verb.only != clause.language:
            continue
        for found in verb.pattern.finditer(clause.text):
            if not defused(clause, found.start(), found.end(), verb, who):
                return True
    return False
