"""The tokenizer a turn gets (only the patterns its characters make possible, the word tried as soon
as no earlier pattern can start at a letter, spaces skipped before any pattern) reads the same tokens
as every pattern tried in its declared order. Turns are made of pieces where patterns compete: dates,
named dates, domains, emails, money, ordinals, quotes, contractions."""

from __future__ import annotations

import random
import re

import pytest

from server.router import tokens

PIECES = [
    "March", "mar", "Jan.", "8", "8th", "2023", " ", "  ", ",", ".", "a@b.co", "@ana",
    "https://x.io/a", "R$", "US$", "$", "€", "40,00", "40.00", "e.g.", "x", "-", "-3", "098-293",
    "'q'", '"q"', "“r”", "[1, 2]", "de", "of", "março", "sept", "Out", "é", "ok", "_", "2023-10-01",
    "10/03/2024", "15:00", "?", "!", "don't", "’s", "vc", "three", "\u00a0", "\t", "www.google.com",
    "foo.bar", "Hi", "3rd", "1º", "a.m.", "+1",
]  # fmt: skip


WHOLE = re.compile(
    "|".join(f"(?P<{kind}>{pattern})" for kind, pattern, _ in tokens._PATTERNS), re.UNICODE
)


def _read(turn: str, language: str) -> list[tuple[str, str, str, int, bool]]:
    return [(t.text, t.norm, t.kind, t.index, t.glued) for t in tokens.tokenize(turn, language)]


def _turns() -> list[str]:
    rng = random.Random(7)
    made = [
        "book March 8, 2023 at 3pm for R$ 40,00",
        "email ana@x.io about 2023-10-01.de",
        "“r”- 'q'March €sept 2023-10-01-3www.google.com",
    ]
    for _ in range(3000):
        parts = rng.randint(1, 12)
        made.append("".join(rng.choice(PIECES) + rng.choice(["", " "]) for _ in range(parts)))
    return made


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_a_turns_own_tokenizer_reads_the_declared_tokens(language, monkeypatch):
    turns = _turns()
    got = [_read(turn, language) for turn in turns]
    # every pattern, in declared order, for every turn: what the turn's own tokenizer must match
    monkeypatch.setattr(tokens, "_token_pattern", lambda _turn: WHOLE)
    assert got == [_read(turn, language) for turn in turns]
