"""The output checks every answer passes, whoever produced it: no commitment, no withheld note.

Runs on the trusted side, after the answering agent returns and before anything is delivered.
"""

from __future__ import annotations

import logging
import re

from server.answering import Answer
from server.router import lexicon as lx
from server.router.reader import find_verb, fold, read

log = logging.getLogger("parley.asking")


def _shingles(text: str, size: int = 6) -> set[str]:
    words = re.findall(r"[a-z0-9]+", fold(text))
    return {" ".join(words[i:i + size]) for i in range(max(0, len(words) - size + 1))}


def commits(text: str, language: str) -> bool:
    """Whether `text` commits someone: a commitment verb, not past, not negated, anywhere in it.

    Every verb position is checked, not only each clause's first: "(may be quoted) Yes, I accept"
    commits even though its first verb is a harmless participle."""
    negations = lx.NEGATIONS[language]
    for sentence in re.split(r"(?<=[.!?;:])\s+", text):
        reading = read(sentence, language)
        if reading.form.frame == "question":
            continue
        tokens = reading.tokens
        negated = False  # a negation holds until the clause ends or "but" turns it: "cannot agree, accept, …"
        for i, token in enumerate(tokens):
            if token.norm in negations or token.norm.endswith("n't"):
                negated = True
                continue
            if token.kind == "punct" and token.norm != "," or token.norm in ("but", "mas", "however", "porem"):
                negated = False
                continue
            verb = find_verb(tokens[i:i + 2], language)
            if verb is None or verb.index != 0 or verb.action not in lx.COMMITMENTS or verb.tense == "past":
                continue
            if not negated:
                return True
    return False


def check_output(answer: Answer, language: str, withheld: list[str], who: str) -> Answer:
    """No commitment and no note the mandate withholds leaves here; either escalates instead."""
    findings = answer.findings or ""
    if answer.escalate is None and answer.refused is None:
        if commits(findings, language):
            log.warning("answer for %s withheld: it read as a commitment", who)
            return Answer(answered=False, scopedRequest=answer.scopedRequest, openQuestions=[answer.scopedRequest],
                          findings=None, escalate="commitment")
        leaked = _shingles(findings)
        if any(_shingles(text) & leaked for text in withheld):
            log.warning("answer for %s withheld: it repeated a note its mandate does not reveal", who)
            return Answer(answered=False, scopedRequest=answer.scopedRequest, openQuestions=[answer.scopedRequest],
                          findings=None, escalate="outside_mandate")
    return answer
