"""A price word near an amount is a price, whatever else the sentence holds before it: a year, a date,
a count of something else, or a few words in between. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import pytest

from server.answering.prices import quotes_price

PRICES = [
    "In 2023 the fee was 900 for the logo.",  # a year first: skipped, and the amount still read
    "Since March 3 her rate is 900 for a logo.",  # a date first
    "She has 500 followers and her fee is 900 for a logo.",  # a count first
    "The fee she mentioned to me last week then was 900.",  # eight words between the price word and it
    "Her fee is a 900 for a logo.",  # an article before the amount
    "The fee is uno 900.",
    "She gives a 20% discount.",  # a percentage off is a price term
    "The deposit is 30 percent.",
]
NOT_PRICES = [
    "The fee she mentioned to me last week then, now, was 900.",  # too far apart to be read together
    "Her fee: one.",
    "In 2023 she had 500 followers.",
    "Ana charged nothing in 2019 and has 3 projects.",
    "Ana charged nothing in 2019 and has 3 new projects.",  # a plural a word later is still what is counted
    "Her fee covers 2 rounds of revisions.",
    "A total of 500 people attended her talk.",  # an irregular plural
]
# An amount followed by a word that is neither a unit nor a known follower: only a plural (what it
# counts, "500 followers") makes it a count; any other word qualifies the amount. Once delivered.
ANY_FOLLOWER = [
    "Her fee is 900 upfront.",
    "She charges 1200 monthly.",
    "Her day rate is 900 now.",
    "O cachê dela é 900 adiantado.",
    "Ana cobra 900 mensais.",  # a price verb's own object, even before a plural
    # a word in -ss or -us is no plural, so it counts nothing: the amount is still a price
    "Her rate for rush jobs is 1200 express.",
    "Her fee is 900 bonus included.",
]


@pytest.mark.parametrize("text", PRICES)
def test_an_amount_near_a_price_word_is_a_price(text):
    assert quotes_price(text), text


@pytest.mark.parametrize("text", NOT_PRICES)
def test_numbers_that_are_not_an_amount_stay_harmless(text):
    assert not quotes_price(text), text


@pytest.mark.parametrize("text", ANY_FOLLOWER)
def test_an_amount_followed_by_any_word_is_still_a_price(text):
    assert quotes_price(text), text
