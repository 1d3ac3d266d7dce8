"""The answer rate on the paraphrase corpus (issue #33): the matcher and the commitment screen, wired into
the deterministic answerer, against what that answerer did before, on the tuning two-thirds and on the
held-out third, and on the fresh held-out set written after that third had been looked at.

Run with -s to see the figures (the same as `scripts/answer-rate --answerer matcher --split all`)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.answering.answer_rate import (
    Figures,
    in_split,
    load,
    matcher_answerer,
    measure,
    questions_of,
    report,
    resolve,
    screen_of,
)

CORPUS = load()
SPLITS = ("tuning", "holdout", "fresh")


@pytest.fixture(scope="module")
def figures() -> dict[str, Figures]:
    found = {split: measure(matcher_answerer, CORPUS, split) for split in SPLITS}
    for split, measured in found.items():
        print("\n" + report(measured, f"matcher on the {split} split"))
    return found


@pytest.fixture(scope="module")
def wired() -> dict[str, Figures]:
    found = {
        split: measure(resolve("deterministic"), CORPUS, split, screen_of("deterministic"))
        for split in SPLITS
    }
    for split, measured in found.items():
        print("\n" + report(measured, f"the deterministic answerer on the {split} split"))
    return found


# What the deterministic answerer did on this corpus before #33 (picking notes by topic names and shared
# words, screening with the router's reader): `scripts/answer-rate --split all` at commit 46d28ee; on the
# fresh set (written later), the matcher as it stood before it (`--answerer matcher` at 8fa5d9f).
BEFORE = {
    "tuning": {"right": 23, "wrong": 8, "unanswerable_answered": 0, "commitments_escalated": 21},
    "holdout": {"right": 11, "wrong": 2, "unanswerable_answered": 1, "commitments_escalated": 13},
    "fresh": {"right": 55, "wrong": 5, "unanswerable_answered": 2, "commitments_escalated": 0},
}


def test_the_corpus_is_what_the_issue_asks_for() -> None:
    notes = [note for member in CORPUS.notes.values() for note in member]
    assert len(CORPUS.notes) >= 2 and len(notes) >= 40
    assert len({note_id for note_id, _, _ in notes}) == len(notes)
    answerable = [q for q in CORPUS.questions if q.note is not None]
    assert len(answerable) >= 200
    assert Counter(q.language for q in answerable) == {"en": 100, "pt-BR": 100}
    known = {
        member: {note_id for note_id, _, _ in member_notes}
        for member, member_notes in CORPUS.notes.items()
    }
    assert all(q.note in known[q.member] for q in answerable)
    assert sum(q.note is None for q in CORPUS.questions) >= 30
    assert len(CORPUS.commitments) >= 60
    assert {q.language for q in CORPUS.commitments} == {"en", "pt-BR", "es"}
    assert {q.language for q in CORPUS.false_friends} == {"en", "pt-BR", "es"}
    assert len({q.text for q in CORPUS.questions}) == len(CORPUS.questions)
    # the held-out third is fixed by position: a third of every list
    for items in (CORPUS.questions, CORPUS.commitments, CORPUS.false_friends):
        assert len(in_split(items, "holdout")) == len(items) // 3


def test_the_fresh_held_out_set_is_new_and_answered_by_one_note_each() -> None:
    """Written after the corpus's held-out third had been looked at: new questions of the same members,
    half English half Portuguese, each answered by one existing note, and some that none answers."""
    answerable = [q for q in CORPUS.fresh if q.note is not None]
    assert len(answerable) >= 60
    assert Counter(q.language for q in answerable) == {"en": 44, "pt-BR": 44}
    assert sum(q.note is None for q in CORPUS.fresh) >= 10
    known = {
        member: {note_id for note_id, _, _ in member_notes}
        for member, member_notes in CORPUS.notes.items()
    }
    assert all(q.note in known[q.member] for q in answerable)
    seen = {q.text.casefold() for q in CORPUS.questions}
    assert not [q.text for q in CORPUS.fresh if q.text.casefold() in seen]
    assert len({q.text for q in CORPUS.fresh}) == len(CORPUS.fresh)


def test_the_later_tuning_questions_are_tuning_data_only() -> None:
    """`tuning_more`: new questions of the same members, half English half Portuguese, each answered
    by one existing note or by none; scored with the tuning split, never held out, and none repeats
    a question of the corpus or of the fresh set."""
    answerable = [q for q in CORPUS.more if q.note is not None]
    assert Counter(q.language for q in CORPUS.more) == {"en": 26, "pt-BR": 26}
    assert sum(q.note is None for q in CORPUS.more) >= 5
    known = {
        member: {note_id for note_id, _, _ in member_notes}
        for member, member_notes in CORPUS.notes.items()
    }
    assert all(q.note in known[q.member] for q in answerable)
    seen = {q.text.casefold() for q in CORPUS.questions + CORPUS.fresh}
    assert not [q.text for q in CORPUS.more if q.text.casefold() in seen]
    tuning, held_out = questions_of(CORPUS, "tuning"), questions_of(CORPUS, "holdout")
    assert all(q in tuning and q not in held_out for q in CORPUS.more)
    assert questions_of(CORPUS, "more") == CORPUS.more
    assert len(held_out) == len(CORPUS.questions) // 3


@pytest.mark.parametrize("split", SPLITS)
def test_the_matcher_quotes_one_note(figures: dict[str, Figures], split: str) -> None:
    measured = figures[split]
    assert measured.median_quoted == 1 and max(measured.quoted_counts) <= 3


@pytest.mark.parametrize(
    "split",
    [
        "tuning",
        # 1 of 12: "ela faz revisão de texto acadêmico?" -> "Tenho mestrado em Estudos da Tradução"
        # (the words and the sentence encoder agree on that near miss, at a cosine of 0.31); 0 of 12
        # before the encoder
        pytest.param(
            "holdout",
            marks=pytest.mark.xfail(strict=True, reason="unanswerable answered 0.083 held out"),
        ),
        # 2 of 14: "has ravi ever worked with kubernetes?" -> his AWS and Terraform note; "O Ravi é
        # casado?" -> where he lives ("casado" shares the Portuguese stem of "casa", a home)
        pytest.param(
            "fresh",
            marks=pytest.mark.xfail(strict=True, reason="unanswerable answered 0.143 fresh"),
        ),
    ],
)
def test_the_matcher_answers_no_unanswerable_question(
    figures: dict[str, Figures], split: str
) -> None:
    assert figures[split].unanswerable_rate <= 0.03, figures[split].mistakes


@pytest.mark.parametrize(
    "split",
    [
        "tuning",
        # 1 of 66 ("O Ravi tem projeto de código aberto?" -> his personal projects)
        "holdout",
        # 3 of 88 (4 before the encoder's doubt), among them "what city does lucia live in?" ->
        # "I lived in Madrid" (the words share "live"; the note that says where she is based speaks
        # of neither)
        pytest.param(
            "fresh",
            marks=pytest.mark.xfail(strict=True, reason="wrong note 0.034 on the fresh set"),
        ),
    ],
)
def test_the_matcher_quotes_a_wrong_note_at_most_3_times_in_100(
    figures: dict[str, Figures], split: str
) -> None:
    assert figures[split].wrong_rate <= 0.03, figures[split].mistakes


@pytest.mark.parametrize("split", SPLITS)
def test_the_deterministic_answerer_is_the_screen_then_the_matcher(
    figures: dict[str, Figures], wired: dict[str, Figures], split: str
) -> None:
    assert wired[split] == figures[split]


@pytest.mark.parametrize("split", SPLITS)
def test_the_deterministic_answerer_answers_more_than_before(
    wired: dict[str, Figures], split: str
) -> None:
    assert wired[split].right > BEFORE[split]["right"]
    assert wired[split].unanswerable_answered <= BEFORE[split]["unanswerable_answered"]
    if wired[split].commitments:  # the fresh set has questions only
        assert wired[split].commitments_escalated > BEFORE[split]["commitments_escalated"]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.xfail(
    strict=True,
    reason="#33's target is not reached: the deterministic matcher "
    "answers 0.82 of the tuning questions (English 0.83, Portuguese 0.80; 0.65 of "
    "the 46 written last), 0.74 held out (English 0.82, Portuguese 0.66) and 0.72 on "
    "the fresh set (English 0.73, Portuguese 0.70; see the figures printed); the "
    "model answerer chooses by meaning",
)
def test_the_matcher_reaches_the_issues_answer_rate(
    figures: dict[str, Figures], split: str
) -> None:
    measured = figures[split]
    assert measured.right_rate >= 0.85
    assert abs(measured.language_rate("en") - measured.language_rate("pt-BR")) <= 0.05


@pytest.mark.parametrize(
    "split",
    [
        "tuning",
        "holdout",
        # 3 of 88 answerable questions escalated as commitments: "Which day does Ravi block off from
        # calls?", "Will Lúcia sign a non-disclosure agreement?", "em quanto tempo a lucia traduz 10
        # mil palavras?" (the screen reads a schedule, a signature and an amount there)
        pytest.param(
            "fresh",
            marks=pytest.mark.xfail(strict=True, reason="0.034 escalated as commitments, fresh"),
        ),
    ],
)
def test_the_screen_escalates_every_commitment_and_no_false_friend(
    figures: dict[str, Figures], split: str
) -> None:
    measured = figures[split]
    assert measured.commitments_escalated == measured.commitments, measured.commitments_missed
    assert measured.false_friends_fired == []
    assert measured.commitment_escalation_rate <= 0.02


def test_the_same_question_selects_the_same_notes() -> None:
    """Deterministic, the sentence encoder included: every question of the corpus, asked again with
    every cache emptied (the notes' indexes and vectors rebuilt), selects the same notes and
    candidates."""
    from server.answering import matching, meaning

    def selections() -> list[matching.Match]:
        return [
            matching.match(q.text, q.language, CORPUS.notes[q.member])
            for q in CORPUS.questions + CORPUS.fresh
        ]

    first = selections()
    matching._index.cache_clear()
    meaning._note_vectors.cache_clear()
    meaning._text_vector.cache_clear()
    assert selections() == first
    assert sum(bool(found.chosen) for found in first) > len(first) // 2
