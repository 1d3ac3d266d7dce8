"""The question screen searches each list of patterns as one alternation (`screen._COMMIT_RE`,
`screen._PRICE_RE`) for speed: it must match exactly where one of the list's patterns matches. Checked
on the tuned part of the paraphrase corpus (its held-out third is left out) and on generated texts."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from server.answering import screen
from server.answering.normalised import normalise
from tests.answering.answer_rate import in_split, load

CORPUS = load()
WORDS = sorted(
    {
        word
        for pattern in screen._COMMIT + screen._PRICE
        for word in re.findall(r"[a-z$']+", pattern)
    }
)


TEXTS = [
    " ".join(normalise(question.text).split())
    for part in (CORPUS.questions, CORPUS.commitments, CORPUS.false_friends)
    for question in in_split(part, "tuning")
]


def _agrees(text: str) -> None:
    for patterns, combined in (
        (screen._COMMIT, screen._COMMIT_RE),
        (screen._PRICE, screen._PRICE_RE),
    ):
        one_by_one = any(re.search(pattern, text) for pattern in patterns)
        assert bool(combined.search(text)) == one_by_one, text


def test_the_corpus_is_read() -> None:
    assert len(TEXTS) > 100
    assert any(screen._COMMIT_RE.search(text) for text in TEXTS)
    assert not all(screen._COMMIT_RE.search(text) for text in TEXTS)


def test_each_alternation_matches_where_one_of_its_patterns_does() -> None:
    for text in TEXTS:
        _agrees(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*WORDS, "me", "us", "a", "the", "for", "on", "did", ",", "?", "5"]))
)
def test_on_texts_made_of_the_patterns_words(words: list[str]) -> None:
    _agrees(" ".join(words))
