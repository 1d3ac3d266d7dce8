"""What the router derives ahead of a turn must say what the turn-time reading would: a tool's words and
kinds (catalogue.CatalogueTool, derived once when it is built) are those of its name and parameters, and
a token the binder leaves out of its openers opens no phrase (the phrase passes read openers alone)."""

from __future__ import annotations

import pytest
import yaml

from server.router.binding import Binder
from server.router.catalogue import GENERIC
from server.router.names import split_words
from server.router.reader import read
from server.router.selection import things
from server.router.vocabulary import parse
from tests.router.conftest import HERE, catalogue
from tests.router.test_tokenizer_order import _turns

CATALOGUES = ("store", "calendar", "club")


@pytest.mark.parametrize("name", CATALOGUES)
def test_a_tools_derived_words_are_its_names_and_parameters(name):
    for tool in catalogue(name).tools:
        own = {*tool.nouns, *tool.adjectives, *tool.namespace}
        assert set(tool.things) == {*tool.nouns, *tool.adjectives}
        assert set(tool.own) == own
        assert set(tool.name_words) == set(split_words(tool.name))
        assert set(tool.param_words) == {w for p in tool.params for w in p.words}
        assert set(tool.kinds) == {p.kind for p in tool.params}
        assert set(tool.param_nouns) == {p.noun for p in tool.params if p.noun}
        assert tool.unbound_words == tuple(
            tuple(w for w in p.words if w not in GENERIC and len(w) > 2 and w not in own)
            for p in tool.params
        )
        assert tool.enums == any(p.enum and p.kind in ("choice", "array") for p in tool.params)
        assert tool.knows == any(p.known or p.listed for p in tool.params)
        assert tool.exemplified == any(p.example_values for p in tool.params)


def _corpus_turns() -> list[tuple[str, str]]:
    entries = yaml.safe_load((HERE / "corpus.yaml").read_text())
    found = []
    for entry in entries:
        languages = entry["l"] if isinstance(entry["l"], list) else [entry["l"]] * len(entry["t"])
        found += zip(entry["t"], languages, strict=True)
    return found


@pytest.mark.parametrize("name", CATALOGUES)
def test_a_token_left_out_of_the_openers_opens_no_phrase(name):
    turns = _corpus_turns() + [(turn, "en") for turn in _turns()[:600]]
    tools = catalogue(name).tools
    for i, (turn, language) in enumerate(turns):
        reading = read(turn, language)
        tokens = reading.tokens
        found = things(tokens, language, parse({"language": language}), set())
        binder = Binder(tools[i % len(tools)], tokens, reading, language, found, set(), {})
        openers = {t.index for t in binder.openers}
        for token in tokens:
            if token.index in openers:
                continue
            assert binder.phrase(token.index) is None, (turn, token)
            assert binder._phrase(token.index) is None, (turn, token)
            assert binder._phrase(token.index, open_end=True) is None, (turn, token)
