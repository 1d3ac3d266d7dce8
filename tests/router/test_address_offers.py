"""A link or an address is offered only as one: a turn that gives names and numbers but no link does
not offer a value for a tool's required URL, so a tool reached by a reading verb with nothing else is
only guessed at (certainty_tool.py); a turn with a link reaches it. Likewise an identifier is not
offered by a plain word after the thing ("the invoice paper"). Turns are invented."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.vocabulary import parse

TOOLS = [
    {
        "name": "get_response",
        "description": "Sends a GET request to the specified URL and retrieves the response.",
        "inputSchema": {
            "type": "object",
            "required": ["url"],
            "properties": {
                "url": {"type": "string", "description": "The URL to send the request to."},
                "label": {"type": "string", "description": "A label for the request."},
                "timeout": {"type": "number", "description": "Seconds to wait."},
            },
        },
    },
    {
        "name": "send_report",
        "description": "Email the weekly report.",
        "inputSchema": {
            "type": "object",
            "required": ["email"],
            "properties": {"email": {"type": "string", "description": "Where to send it."}},
        },
    },
]


def _first(turn: str):
    result = plan(turn, Catalogue.from_declarations(TOOLS), "en", parse({"language": "en"}))
    return result, result.steps[0]


@pytest.mark.parametrize(
    "turn",
    [
        "I'd like correct responses for my users, Alice and Bob",
        "show me the responses my Chatbot gave for Query 12",
    ],
)
def test_names_and_numbers_offer_no_link(turn):
    result, first = _first(turn)
    assert first.selection.tool is None, result.guidance.render
    assert first.decided_by == "unread: tool unsure"


@pytest.mark.parametrize(
    "turn",
    [
        "show me the response from https://example.com/status",
        "show me the response from example.com",
    ],
)
def test_a_link_is_offered(turn):
    result, first = _first(turn)
    assert first.selection.tool == "get_response", result.guidance.render
    assert first.selection.arguments.get("url") or "url" in first.selection.missing


INVOICES = [
    {
        "name": "get_invoice",
        "description": "Retrieve one invoice by its identifier.",
        "inputSchema": {
            "type": "object",
            "required": ["invoice_id"],
            "properties": {"invoice_id": {"type": "string", "description": "The invoice's id."}},
        },
    }
]


def test_a_plain_word_after_the_thing_is_no_identifier():
    """ "get the invoice paper": a word that says which invoice in words is no id for it."""
    vocabulary = parse({"language": "en"})
    result = plan("get the invoice paper", Catalogue.from_declarations(INVOICES), "en", vocabulary)
    assert result.steps[0].decided_by == "unread: tool unsure", result.guidance.render
    result = plan("get invoice A-113", Catalogue.from_declarations(INVOICES), "en", vocabulary)
    assert result.steps[0].selection.tool == "get_invoice", result.guidance.render
