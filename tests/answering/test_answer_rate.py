"""The answer rate, corpus by corpus (issue #46): on first ask the matcher quotes a wrong note at most 3
times in 100 and answers at most 3 in 100 of the questions no note answers, on every corpus, each
judged under gates fitted on the other corpora (`fit_gates`, leaving it out); right as high as it then
goes, with the 0.85 goal an expected failure while it is short. The paraphrase corpus of #33 (ana,
ravi, lucia) is read here as three corpora, one a member; joana's was written for #46 before the
matcher changed; daniel's was the newest of that round and is fitted on since, as is tomas's, the
newest of round r46; iara's, the newest of round h46, is never fitted on (`corpora`).

Run with -s to see the figures (`scripts/answer-rate`, `scripts/answer-rate --fit`)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.answering import corpora, fit_gates
from tests.answering.answer_rate import in_split, load, questions_of

CORPUS = load()
PROMISE = 0.03


@pytest.fixture(scope="module")
def tables() -> dict[str, fit_gates.Table]:
    return {name: fit_gates.table(corpora.corpus(name)) for name in corpora.FITTED}


@pytest.fixture(scope="module")
def left_out(tables: dict[str, fit_gates.Table]) -> dict[str, tuple[int, int, int, int, int]]:
    """Each fitted corpus under the gates fitted on the others: (right, wrong, answerable,
    unanswerable answered, unanswerable)."""
    found = {}
    for name, table in tables.items():
        at = fit_gates.fit([t for other, t in tables.items() if other != name])
        right, wrong, unanswerable = (int(c[at]) for c in fit_gates._counts(table))
        asked = int(table.answerable.sum())
        found[name] = (right, wrong, asked, unanswerable, int((~table.answerable).sum()))
        print(f"\nleft out, {fit_gates.figures(table, at)}")
    return found


@pytest.mark.parametrize("name", corpora.FITTED)
def test_a_corpus_left_out_of_the_fit_keeps_the_promise(
    left_out: dict[str, tuple[int, int, int, int, int]], name: str
) -> None:
    right, wrong, asked, unanswerable, unanswerables = left_out[name]
    assert wrong / asked <= PROMISE and unanswerable / unanswerables <= PROMISE, left_out[name]
    assert right > 0


def test_the_shipped_gates_are_what_the_fit_on_every_fitted_corpus_gives(
    tables: dict[str, fit_gates.Table],
) -> None:
    from server.answering import sureness

    fitted = fit_gates.point(fit_gates.fit(list(tables.values())))
    assert fitted == {name: getattr(sureness.GATES, name) for name in fitted}


def _asked(names: tuple[str, ...], label: str = "") -> dict[str, corpora.Tally]:
    """Each corpus asked once of the deterministic answerer as shipped (screen, matcher, gates)."""
    found = {name: corpora.first_ask(corpora.corpus(name)) for name in names}
    for name, tally in found.items():
        print(f"\n{name}{label}, first ask: {tally.line()}")
    return found


@pytest.fixture(scope="module")
def first_asks() -> dict[str, corpora.Tally]:
    """Every fitted corpus, first ask."""
    return _asked(corpora.FITTED)


@pytest.mark.parametrize("name", corpora.FITTED)
def test_the_shipped_answerer_keeps_the_promise_and_quotes_one_note(
    first_asks: dict[str, corpora.Tally], name: str
) -> None:
    tally = first_asks[name]
    assert tally.wrong_rate <= PROMISE and tally.unanswerable_rate <= PROMISE, tally.mistakes
    assert tally.most_quoted == 1


@pytest.fixture(scope="module")
def newest() -> dict[str, corpora.Tally]:
    """The newest corpora (rafael, yuki), never fitted on: scored once the matcher was frozen for
    round c46."""
    return _asked(corpora.NEWEST, " (newest)")


@pytest.mark.parametrize("name", corpora.NEWEST)
def test_the_newest_corpus_gets_a_wrong_note_at_most_3_times_in_100(
    newest: dict[str, corpora.Tally], name: str
) -> None:
    tally = newest[name]
    assert tally.wrong_rate <= PROMISE and tally.most_quoted == 1, tally.mistakes


@pytest.mark.parametrize("name", corpora.NEWEST)
def test_the_newest_corpus_answers_at_most_3_in_100_unanswerable_questions(
    newest: dict[str, corpora.Tally], name: str
) -> None:
    assert newest[name].unanswerable_rate <= PROMISE, newest[name].mistakes


@pytest.mark.parametrize("name", corpora.FITTED)
@pytest.mark.xfail(
    strict=True,
    reason="#46's right-rate goal is not reached: on first ask the matcher, sure only where its "
    "certainty held on every corpus left out (nine fitted since round c46), answers 0.04-0.24 of the "
    "questions right (ana 0.180, ravi 0.239, lucia 0.222, joana 0.165, daniel 0.124, tomas 0.210, "
    "iara 0.116, bento 0.156, marisa 0.044; see the figures printed); the goal is 0.85 with "
    "Portuguese within 5 points of English",
)
def test_the_answerer_reaches_the_right_rate_goal(
    first_asks: dict[str, corpora.Tally], name: str
) -> None:
    tally = first_asks[name]
    assert tally.right_rate >= 0.85
    english, portuguese = (
        right / asked for right, asked in (tally.by_language["en"], tally.by_language["pt-BR"])
    )
    assert abs(english - portuguese) <= 0.05


def test_portuguese_is_answered_within_5_points_of_english_over_every_corpus(
    first_asks: dict[str, corpora.Tally], newest: dict[str, corpora.Tally]
) -> None:
    """Over every corpus's answerable questions together (a corpus alone has 30-60 a language: its
    rate is known to about 12 points either way), the share answered right in Portuguese is within
    5 points of the share in English (round c46: en 66/440 0.150, pt-BR 70/378 0.185)."""
    right = {"en": 0, "pt-BR": 0}
    asked = {"en": 0, "pt-BR": 0}
    for tally in [*first_asks.values(), *newest.values()]:
        for language in right:
            got, of = tally.by_language[language]
            right[language] += got
            asked[language] += of
    english, portuguese = (right[lang] / asked[lang] for lang in ("en", "pt-BR"))
    assert min(asked.values()) >= 300
    assert abs(english - portuguese) <= 0.05, (right, asked)


@pytest.mark.parametrize("name", ["joana", "daniel", "tomas"])
def test_the_corpora_written_for_46_are_what_it_asks_for(name: str) -> None:
    """Another member than ana, notes in both languages, 80-100 answerable questions in both
    languages (some crossing them), 15 or more that no note answers; no question repeated."""
    member = corpora.corpus(name)
    languages = Counter(note_language(text) for _, _, text in member.notes)
    assert 30 <= len(member.notes) <= 40 and languages["en"] >= 10 and languages["pt"] >= 10
    answerable = [q for q in member.questions if q.note is not None]
    assert 80 <= len(answerable) <= 100
    assert {q.language for q in answerable} == {"en", "pt-BR"}
    assert sum(q.note is None for q in member.questions) >= 15
    known = {note_id for note_id, _, _ in member.notes}
    assert all(q.note in known for q in answerable)
    assert len({q.text.casefold() for q in member.questions}) == len(member.questions)
    text_of = {note_id: text for note_id, _, text in member.notes}
    crossing = [q for q in answerable if note_language(text_of[q.note or ""]) != q.language[:2]]
    assert len(crossing) >= 20


@pytest.mark.parametrize("name", ["iara", "bento", "marisa", "rafael", "yuki"])
def test_the_newest_corpora_of_rounds_h46_and_c46_are_what_their_brief_asks_for(name: str) -> None:
    """Each another member, about 15 notes half of them in Portuguese, about 50 questions half of
    them in Portuguese, about 15 that no note answers, some crossing the languages; none repeated."""
    member = corpora.corpus(name)
    languages = Counter(note_language(text) for _, _, text in member.notes)
    assert 14 <= len(member.notes) <= 20 and languages["en"] >= 6 and languages["pt"] >= 6
    assert 45 <= len(member.questions) <= 65
    portuguese = sum(q.language == "pt-BR" for q in member.questions)
    assert abs(2 * portuguese - len(member.questions)) <= 6
    assert 12 <= sum(q.note is None for q in member.questions) <= 18
    known = {note_id for note_id, _, _ in member.notes}
    answerable = [q for q in member.questions if q.note is not None]
    assert all(q.note in known for q in answerable)
    assert len({q.text.casefold() for q in member.questions}) == len(member.questions)
    text_of = {note_id: text for note_id, _, text in member.notes}
    assert sum(note_language(text_of[q.note or ""]) != q.language[:2] for q in answerable) >= 10


def note_language(text: str) -> str:
    from server.answering.matching import text_language

    return text_language(text) or "en"


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


def test_the_same_question_selects_the_same_notes() -> None:
    """Deterministic, the sentence encoder included: every question of the corpus, asked again with
    every cache emptied (the notes' indexes and vectors rebuilt), selects the same notes and
    candidates."""
    from server.answering import matching, meaning, word_ranking

    def selections() -> list[matching.Match]:
        return [
            matching.match(q.text, q.language, CORPUS.notes[q.member], (q.member,))
            for q in CORPUS.questions + CORPUS.fresh
        ]

    first = selections()
    word_ranking._index.cache_clear()
    meaning._note_vectors.cache_clear()
    meaning._text_vector.cache_clear()
    assert selections() == first
    assert sum(bool(found.chosen) for found in first) > len(first) // 8
