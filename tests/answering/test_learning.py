"""`scripts/answer-rate --learn` as a test (issue #46): each corpus, the newest too (scored after the
matcher froze), in a club of its own (a temporary SQLite store), asked through the real ask path;
each note's first question, where it escalated, settled by the member through the real `parley queue
answer`; then every other question asked again. The promise holds after learning too; the
right-rate goal (0.85) is an expected failure while it is short. Run with -s to see the figures."""

from __future__ import annotations

import pytest

from tests.answering import corpora
from tests.answering.learning import Learned, learn

PROMISE = 0.03


@pytest.fixture(scope="module")
def learned() -> dict[str, Learned]:
    found = {name: learn(corpora.corpus(name)) for name in corpora.ALL}
    for name, result in found.items():
        print(f"\n{name}: {result.taught} taught; first ask {result.first_ask.line()}")
        print(f"{name}: after learning {result.learned.line()}")
        print(f"{name}: taught, asked again {result.again.line()}; {result.held} held for consent")
    return found


@pytest.mark.parametrize("name", corpora.ALL)
def test_after_the_member_taught_the_promise_holds(learned: dict[str, Learned], name: str) -> None:
    result = learned[name]
    assert result.taught > 0  # the member did teach: first questions escalated and were settled
    after = result.learned
    assert after.wrong_rate <= PROMISE and after.unanswerable_rate <= PROMISE, after.mistakes
    assert after.most_quoted == 1


@pytest.mark.parametrize("name", corpora.ALL)
def test_a_question_the_member_settled_asked_again_gets_the_members_note(
    learned: dict[str, Learned], name: str
) -> None:
    """Every taught question, asked again in its own words, is answered from the note the member
    pointed at, unless that note is one they consent to each time (it escalates for their consent)."""
    result = learned[name]
    again = result.again
    assert again.answerable == result.taught and again.wrong == 0
    assert again.right + result.held == result.taught, again.mistakes


@pytest.mark.parametrize("name", corpora.ALL)
@pytest.mark.xfail(
    strict=True,
    reason="#46's goal after learning (0.85 right) is not reached: one example a note, taught from "
    "its first question, moves the right rate by a few questions at most (round c46: ana 18 -> 20 "
    "of 106, ravi 24 -> 26 of 98, lucia 18 -> 21 of 86, joana 9 -> 10 of 57, daniel 5 -> 6 of 56, "
    "tomas 11 -> 11 of 51, iara 1 -> 1 of 27, bento 3 -> 3, marisa 2 -> 2, rafael 1 -> 1, yuki "
    "3 -> 3 of 29; see the figures printed)",
)
def test_after_the_member_taught_the_right_rate_reaches_the_goal(
    learned: dict[str, Learned], name: str
) -> None:
    assert learned[name].learned.right_rate >= 0.85
