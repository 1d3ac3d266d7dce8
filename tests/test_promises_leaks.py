"""A note the mandate withholds is not repeated in an answer: six words in a row are a leak, five at the
end of both texts are not. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import pytest

from server.answering import Answer
from server.answering.checks import check_output, problem


def test_a_six_word_note_repeated_whole_is_a_leak():
    note = "Ana is moving to Lisbon soon."
    assert problem(note, "en", "ana", [note]) == "leak"
    checked = check_output(Answer(answered=False, scopedRequest="q", findings=note), "en", [note], "ana")
    assert checked.escalate == "outside_mandate" and checked.findings is None


def test_six_words_in_a_row_inside_longer_texts_are_a_leak():
    note = "Ana told me she will move to Lisbon next spring with her family."
    assert problem("Her studio will move to Lisbon next spring, I hear.", "en", "ana", [note]) == "leak"


def test_five_shared_words_at_the_end_are_not_a_leak():
    note = "Ana told me she will move to Lisbon next spring"
    assert problem("The studio may move to Lisbon next spring", "en", "ana", [note]) is None
    assert problem("Ana may move to Lisbon", "en", "ana", ["Bruno may move to Lisbon"]) is None


def test_a_short_withheld_note_repeated_whole_is_a_leak():
    assert problem("Ana is pregnant.", "en", "ana", ["Ana is pregnant."]) == "leak"


def test_a_short_note_leaks_only_whole_and_in_order():
    assert problem("Yes: ANA IS PREGNANT!", "en", "ana", ["Ana is pregnant."]) == "leak"
    assert problem("Is Ana pregnant? Ask her.", "en", "ana", ["Ana is pregnant."]) is None
    assert problem("Ana is in Porto.", "en", "ana", ["Ana is pregnant."]) is None
