"""Fits the matcher's open-question gate (`matching.OPEN_MARGIN`, `matching.OPEN_NOT_BELOW`) on the
paraphrase corpus's tuning split only, so that anyone can refit it after the notes, the corpus or the
other gates change.

Usage: scripts/answer-rate --fit-open-gate

The gate is asked only of what the matcher's other gates leave unanswered. For each tuning question
that passes the screen and that the matcher, without this gate, does not answer: whether it is open
(`kinds.is_open`), the words' best note's margin over the runner-up, and the encoder's z-score of that
note among the member's notes. Over a grid of (margin, z) thresholds, the gate's yield is the right
notes it would add against the wrong notes and unanswered-by-design questions it would answer; the
fitted point is the middle of the cells that add the most right notes and nothing bad (the median
margin of those cells, then the median z at that margin), so the thresholds sit away from the
nearest miss on either side. The held-out third and the fresh set are never read here.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from tests.answering.answer_rate import Corpus, load, matcher_answerer, questions_of

MARGINS = tuple(round(0.01 * i, 2) for i in range(0, 41))
ZS = tuple(round(-1.0 + 0.05 * i, 2) for i in range(0, 71))


@dataclass(frozen=True)
class Point:
    """One tuning question the other gates leave unanswered, as the open gate would see it."""

    text: str
    margin: float
    z: float
    right: bool  # the words' best note is the question's note (False: wrong, or no note answers)


def points(corpus: Corpus) -> list[Point]:
    """The open tuning questions that the matcher without the open gate does not answer."""
    from server.answering import kinds, matching, meaning

    saved = matching.OPEN_MARGIN
    matching.OPEN_MARGIN = math.inf  # the gate off: what the other gates leave
    try:
        found = []
        for q in questions_of(corpus, "tuning"):
            notes = corpus.notes[q.member]
            quoted, reason = matcher_answerer(q.text, q.language, corpus.names[q.member], notes)
            if quoted or reason != "outside_mandate" or len(notes) < matching.AGREED_AMONG:
                continue
            if not kinds.is_open(q.text):
                continue
            score = matching.scores(q.text, notes)
            order = sorted(range(len(notes)), key=lambda i: (-score[i], notes[i][0]))
            best, runner_up = order[0], order[1]
            similarity = meaning.similarities(q.text, notes)
            mean = math.fsum(similarity) / len(similarity)
            spread = math.sqrt(math.fsum((s - mean) ** 2 for s in similarity) / len(similarity))
            if spread == 0:
                continue
            found.append(
                Point(
                    q.text,
                    score[best] - score[runner_up],
                    (similarity[best] - mean) / spread,
                    notes[best][0] == q.note,
                )
            )
        return found
    finally:
        matching.OPEN_MARGIN = saved


def yield_at(found: list[Point], margin: float, z: float) -> tuple[int, int]:
    """(right notes added, bad answers added) with the gate at these thresholds."""
    fired = [p for p in found if p.margin >= margin and p.z >= z]
    return sum(p.right for p in fired), sum(not p.right for p in fired)


def fit(found: list[Point]) -> tuple[float, float, int]:
    """(margin, z, right added): the middle of the best cells that add nothing bad."""
    cells = {(m, z): yield_at(found, m, z) for m in MARGINS for z in ZS}
    most = max(right for right, bad in cells.values() if bad == 0)
    best = [cell for cell, (right, bad) in cells.items() if right == most and bad == 0]
    margin = statistics.median_low(sorted({m for m, _ in best}))
    z = statistics.median_low(sorted(z for m, z in best if m == margin))
    return margin, z, most


def main() -> int:
    from server.answering import matching

    found = points(load())
    for p in sorted(found, key=lambda p: (-p.margin, -p.z)):
        print(f"  {'right' if p.right else 'BAD  '} margin {p.margin:.3f} z {p.z:+.2f}  {p.text}")
    margin, z, most = fit(found)
    print(
        f"fitted on the tuning split: OPEN_MARGIN = {margin}, OPEN_NOT_BELOW = {z} (+{most} right)"
    )
    stated = (matching.OPEN_MARGIN, matching.OPEN_NOT_BELOW)
    print(
        f"in server/answering/matching.py: OPEN_MARGIN = {stated[0]}, OPEN_NOT_BELOW = {stated[1]}"
    )
    print(
        "the same"
        if stated == (margin, z)
        else "DIFFERENT: copy the fitted values into matching.py"
    )
    return 0 if stated == (margin, z) else 1
