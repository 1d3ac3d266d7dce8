"""The question screen searches each list of patterns with `triggers.Triggered` (`screen._COMMIT_RE`,
`screen._PRICE_RE`): a pattern runs only on a text holding one of the strings its matches must
contain, read from its parse tree. That must answer exactly as searching every pattern does. Checked
on the tuned part of the paraphrase corpus (its held-out third is left out), on generated texts, and
on patterns built to catch a reader that takes an optional or alternative piece for a required one."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.answering import screen
from server.answering.normalised import normalise
from server.answering.triggers import Triggered, triggers
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
    for patterns, triggered in (
        (screen._COMMIT, screen._COMMIT_RE),
        (screen._PRICE, screen._PRICE_RE),
    ):
        one_by_one = any(re.search(pattern, text) for pattern in patterns)
        assert triggered.search(text) == one_by_one, text


def test_the_corpus_is_read() -> None:
    assert len(TEXTS) > 100
    assert any(screen._COMMIT_RE.search(text) for text in TEXTS)
    assert not all(screen._COMMIT_RE.search(text) for text in TEXTS)


def test_each_list_matches_where_one_of_its_patterns_does() -> None:
    for text in TEXTS:
        _agrees(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*WORDS, "me", "us", "a", "the", "for", "on", "did", ",", "?", "5"]))
)
def test_on_texts_made_of_the_patterns_words(words: list[str]) -> None:
    _agrees(" ".join(words))


def test_most_questions_run_no_pattern() -> None:
    """What the triggers are for: the screen's patterns hold strings a plain question lacks."""
    assert not screen._COMMIT_RE.search("is she taking on new work?")
    assert triggers(r"\bbook\s+(?!pages?\b)(?:me|us)\b") == {"book"}
    assert triggers(r"\b(?:hourly|daily)\s+rate\b") == {"hourly", "daily"}  # the longer


# Each: a pattern, and texts it matches that hold none of the strings a careless reader would require.
TRICKY = [
    (r"book(?:ing)?s?\b", ["book", "books", "booking"]),  # optional pieces are not required
    (r"(?:pay|)\s?now", ["now", "pay now"]),  # an empty alternative
    (r"a{0}b|c", ["b", "c"]),  # a repeat of nothing, an alternative
    (r"x*y+z?", ["y", "xxy"]),
    (r"(?i:sign)", ["SIGN", "Sign"]),  # case-insensitive: no literal stands for it
    (r"(?i)reserve", ["RESERVE"]),
    (r"(a)\1", ["aa"]),  # a back-reference
    (r"[^qr]ay", ["pay", "say"]),  # a negated class
    (r"[a-c]at", ["bat", "cat"]),  # a class read as its characters
    (r"(?=book)b", ["book"]),  # what a lookahead requires is not in the match
    (r"[\dx]k", ["5k", "xk", "\u0665k"]),  # a digit of any script, in a class
    (r"(?:payment\s|\w)no", ["xno"]),  # an alternative with nothing it must hold
    (r"(?:ab|cd)(?:ef|gh)", ["abgh", "cdef"]),
]


@pytest.mark.parametrize(("pattern", "texts"), TRICKY)
def test_a_pattern_matches_every_text_it_matched_before(pattern: str, texts: list[str]) -> None:
    triggered = Triggered([pattern])
    for text in texts:
        assert re.search(pattern, text), (pattern, text)
        assert triggered.search(text), (pattern, text)
        assert triggered.search(f"w {text} w"), (pattern, text)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from([p for p, _ in TRICKY]), min_size=1, max_size=4),
    st.text(alphabet="abcxyzbookpaynowsignrREservment5k\u0665 ", max_size=14),
)
def test_generated_texts_on_the_tricky_patterns(patterns: list[str], text: str) -> None:
    assert Triggered(patterns).search(text) == any(re.search(p, text) for p in patterns)
