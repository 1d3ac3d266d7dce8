"""Fits the matcher's doubt (`DOUBTED_BELOW` in server/answering/matching.py) on the tuning split only.

The doubt withholds an answer that the words alone gave (the clear, strong and kind gates) by a lead
under STRONG_MARGIN when the sentence encoder places that note far below the member's other notes.
For each tuning question those gates answer so (with the doubt off), this takes the encoder's z-score
of the chosen note and whether it is the question's note. The fitted threshold is the middle of the
gap between the lowest z of a right answer and the highest z below it of a bad one (a wrong note, or
any note for a question no note answers), rounded to 0.05: it withholds every bad answer it can
without withholding a right one, and sits as far from both as the data allow. No bad answer below
the lowest right one: nothing to fit (None). The held-out third and the fresh set are never read here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tests.answering.answer_rate import Corpus, load, matcher_answerer, questions_of


@dataclass(frozen=True)
class Point:
    """One tuning question the words alone answer, as the doubt would see it."""

    text: str
    z: float  # the encoder's z-score of the chosen note over the member's notes
    right: bool


def points(corpus: Corpus) -> list[Point]:
    """The tuning questions that the matcher answers by its words-only gates, the doubt off."""
    from server.answering import matching, meaning

    saved = matching.DOUBTED_BELOW
    matching.DOUBTED_BELOW = -math.inf  # the doubt off
    try:
        found = []
        for q in questions_of(corpus, "tuning"):
            notes = corpus.notes[q.member]
            quoted, _ = matcher_answerer(q.text, q.language, corpus.names[q.member], notes)
            if not quoted or len(notes) < matching.AGREED_AMONG:
                continue
            if not _by_words_alone(q.text, notes):
                continue
            score = sorted(matching.scores(q.text, notes), reverse=True)
            if score[0] - score[1] >= matching.STRONG_MARGIN:  # a strong lead is not doubted
                continue
            chosen = [note_id for note_id, _, _ in notes].index(quoted[0])
            z = matching._z_scores(meaning.similarities(q.text, notes))[chosen]
            found.append(Point(q.text, z, quoted[0] == q.note))
        return found
    finally:
        matching.DOUBTED_BELOW = saved


def _by_words_alone(question: str, notes: list[tuple[str, str, str]]) -> bool:
    """Whether the matcher answers without its encoder's gates (they are off here)."""
    from server.answering import matching

    saved = matching._by_meaning
    matching._by_meaning = lambda *args: None  # the encoder's gates off
    try:
        return bool(matching.match(question, "", notes).chosen)
    finally:
        matching._by_meaning = saved


def fit(found: list[Point]) -> float | None:
    """The middle of the gap between the lowest right z and the highest bad z below it."""
    lowest_right = min((p.z for p in found if p.right), default=math.inf)
    below = [p.z for p in found if not p.right and p.z < lowest_right]
    if not below or lowest_right == math.inf:
        return None
    return round(round((lowest_right + max(below)) / 2 / 0.05) * 0.05, 2)


def main() -> int:
    from server.answering import matching

    found = points(load())
    for p in sorted(found, key=lambda p: p.z)[:8]:
        print(f"  {'right' if p.right else 'BAD  '} z {p.z:+.2f}  {p.text}")
    fitted = fit(found)
    print(f"fitted on the tuning split: DOUBTED_BELOW = {fitted}")
    print(f"in server/answering/matching.py: DOUBTED_BELOW = {matching.DOUBTED_BELOW}")
    same = fitted == matching.DOUBTED_BELOW
    print("the same" if same else "DIFFERENT: copy the fitted value into matching.py")
    return 0 if same else 1
