"""When the matcher is sure enough to quote a note: few decisions, each fitted by leaving whole corpora out.

The matcher ranks a member's notes twice, by their words (BM25 over stems and subjects) and by their
meaning (a sentence encoder that reads English and Portuguese), and gathers what it knows of the words'
best note in an `Evidence`. `decide` quotes that note only on one of two routes:
- agreed: the encoder's nearest note is the same note, and the note speaks to enough of the question
  (its words, and its rarer words, weighed by general-language rarity) by a clear enough lead;
- clear: the note is clearly ahead on the words, speaks to the question's rarer words, and the encoder
  does not place it low among the member's notes;
and never when the question names a narrow kind of answer (what year, which month, what time, which
day) that the note does not hold (`kinds.NARROW`).

Each threshold (`Gates`) is fitted by tests/answering/fit_gates.py on every corpus but one and scored on
the one left out, for each corpus in turn; the shipped values are fitted on all the fitted corpora
and kept only where every left-out corpus kept the promise (wrong note and unanswerable answered at
most 0.03). What the rounds before this one added and that did not hold out (the encoder alone
standing apart, the open-question gate, the kind gate, the strong gate, the doubt) is gone: see
`matching`'s docstring.

A note is a *plausible* candidate for the principal only when the words give it a share of the
question (`PLAUSIBLE_SCORE`) or the encoder places it well above the member's other notes
(`PLAUSIBLE_Z`): an escalation lists no note that is not close.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Gates:
    """The thresholds `decide` applies (see the module's docstring)."""

    agreed_coverage: float  # share of the question's words the note speaks to
    agreed_rare: float  # ... weighted by each word's rarity
    agreed_margin: float  # the note's lead on the words over the runner-up
    clear_score: float  # the note's words score (BM25, normalised to what the question could score)
    clear_margin: float
    clear_rare: float
    clear_not_below: float  # the encoder's z-score of the note among the member's notes
    closed_rare: float  # a yes-or-no question: the rare coverage it needs on either route


@dataclass(frozen=True)
class Evidence:
    """What the matcher knows of the words' best note for one question."""

    agreed: bool  # the encoder's nearest note is the words' best
    score: float
    margin: float
    coverage: float
    rare: float
    z: float  # the encoder's z-score of the words' best note over the member's notes
    kind_missing: bool  # the question names a narrow kind the note does not hold
    open: bool  # the question asks for a value (what, where, when...), not for a yes or a no


# Fitted by tests/answering/fit_gates.py (`scripts/answer-rate --fit`) on the corpora ana, ravi, lucia
# and joana together. Left out one at a time, each corpus kept the promise under the gates fitted on
# the other three (wrong 0, 0, 0 and 1 of 91; no unanswerable question answered). The clear route
# fits to nothing (a score no question reaches): what the words alone are sure of, the encoder
# agrees with, and what it does not agree with did not hold out.
GATES = Gates(
    agreed_coverage=0.5,
    agreed_rare=0.5,
    agreed_margin=0.06,
    clear_score=math.inf,
    clear_margin=0.3,
    clear_rare=0.75,
    clear_not_below=2.0,
    closed_rare=0.9,
)
# a candidate for the principal: a fifth of the question's best score on the words, or far above the
# member's other notes for the encoder (its nearest for a question no note answers stands at a z of
# 1.5-2.9 on the fitted corpora: the encoder alone is a weak sign of closeness)
PLAUSIBLE_SCORE = 0.2
PLAUSIBLE_Z = 2.5


def decide(evidence: Evidence, gates: Gates = GATES) -> bool:
    """Whether the words' best note is sure enough to quote."""
    if evidence.kind_missing or evidence.score <= 0:
        return False
    if not evidence.open and evidence.rare < gates.closed_rare:
        return False
    agreed = (
        evidence.agreed
        and evidence.coverage >= gates.agreed_coverage
        and evidence.rare >= gates.agreed_rare
        and evidence.margin >= gates.agreed_margin
    )
    clear = (
        evidence.score >= gates.clear_score
        and evidence.margin >= gates.clear_margin
        and evidence.rare >= gates.clear_rare
        and evidence.z >= gates.clear_not_below
    )
    return agreed or clear


def plausible(score: float, z: float) -> bool:
    """Whether a note is close enough to the question to show the principal beside it."""
    return score >= PLAUSIBLE_SCORE or z >= PLAUSIBLE_Z
