"""A question of what a kind of thing is ("what is a mandate?") is no call of a tool about such things,
in English and Brazilian Portuguese; a question for one of them (an article, an owner, a name) still is.
Turns and tools are invented for the rule."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.reader import read
from server.router.vocabulary import parse

TOOLS = [
    {
        "name": "user.mandates",
        "description": "Fetches the mandates of a user.",
        "inputSchema": {"type": "object", "properties": {"status": {"type": "string"}}},
    },
    {
        "name": "partner.mandates",
        "description": "Fetches the mandates of a partner.",
        "inputSchema": {"type": "object", "properties": {"status": {"type": "string"}}},
    },
    {
        "name": "get_invoice",
        "description": "Retrieve an invoice.",
        "inputSchema": {"type": "object", "properties": {"status": {"type": "string"}}},
    },
]


def _plan(turn: str, language: str):
    return plan(turn, Catalogue.from_declarations(TOOLS), language, parse({"language": language}))


@pytest.mark.parametrize(
    ("turn", "language"),
    [
        ("What is mandate?", "en"),
        ("what is a mandate", "en"),
        ("What are mandates?", "en"),
        ("what is an invoice?", "en"),
        ("o que é um mandato?", "pt-BR"),
    ],
)
def test_what_a_kind_of_thing_is_calls_no_tool(turn, language):
    result = _plan(turn, language)
    assert read(turn, language).definition
    assert [s.decided_by for s in result.steps] == ["unread: meaning"], result.guidance.render
    assert result.outcome == "unread"


@pytest.mark.parametrize(
    "turn",
    ["What is the invoice?", "what are my mandates?", "What is Invoice 4411?", "get a mandate"],
)
def test_a_question_for_one_thing_is_no_definition(turn):
    assert not read(turn, "en").definition
    result = _plan(turn, "en")
    assert any(s.selection.tool or s.selection.choices for s in result.steps), result.steps
