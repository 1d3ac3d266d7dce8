"""Relevance resting on too little: a tool is not asked about when the turn reaches it only through
the thing one of its parameters reads (a question about doing, too), or names its thing only to
qualify another tool's thing ("concert tickets" asks for tickets, not for a concert search), unless
the turn uses the tool's own verb (planner.py, selection.qualifier_only)."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.vocabulary import parse

EMPTY = parse({"language": "en"})

SENSORS = [
    {
        "name": "greenhouse.climate.shelfReadings.get",
        "description": "Retrieves climate readings for one shelf of a greenhouse, in a given bay and"
        " row, filtered by the kind of reading.",
        "inputSchema": {
            "type": "object",
            "required": ["greenhouseName", "bayId", "rowId", "readingType"],
            "properties": {
                "greenhouseName": {"type": "string", "description": "The greenhouse's name."},
                "bayId": {"type": "string", "description": "The identifier of the bay."},
                "rowId": {"type": "string", "description": "The identifier of the row."},
                "readingType": {
                    "type": "string",
                    "enum": ["humidity", "temperature"],
                    "description": "The kind of reading.",
                },
            },
        },
    }
]

CONCERTS = [
    {
        "name": "Concerts_2_FindConcerts",
        "description": "Search for concerts in a city by artist and genre.",
        "inputSchema": {
            "type": "object",
            "required": ["city"],
            "properties": {
                "city": {"type": "string", "description": "The city, such as 'Porto'."},
                "artist": {"type": "string", "description": "The artist or band."},
            },
        },
    },
    {
        "name": "Concerts_2_BuyTickets",
        "description": "Purchase tickets for a concert on a given date.",
        "inputSchema": {
            "type": "object",
            "required": ["concert_name", "number_of_tickets", "date"],
            "properties": {
                "concert_name": {"type": "string", "description": "The concert's title."},
                "number_of_tickets": {"type": "integer", "description": "How many tickets."},
                "date": {"type": "string", "description": "The date, as YYYY-MM-DD."},
            },
        },
    },
]

GRADES = [
    {
        "name": "calculate_median",
        "description": "Calculate the median of a list of numbers.",
        "inputSchema": {
            "type": "object",
            "required": ["numbers"],
            "properties": {"numbers": {"type": "array", "items": {"type": "number"}}},
        },
    },
    {
        "name": "lowest_score",
        "description": "Find the lowest score among a class's results.",
        "inputSchema": {
            "type": "object",
            "required": ["results"],
            "properties": {"results": {"type": "object", "description": "Name to score."}},
        },
    },
]


def first(turn: str, declarations: list[dict]) -> tuple[str, str | None, str]:
    result = plan(turn, Catalogue.from_declarations(declarations), "en", EMPTY)
    step = result.steps[0]
    return step.kind, step.selection.tool, step.decided_by


def test_a_question_about_doing_that_reaches_a_tool_only_through_a_parameter_is_not_that_tool():
    kind, tool, rule = first(
        "How to get bay information for house test-de, the ip is 10.1.2.3?", SENSORS
    )
    assert (kind, tool, rule) == ("unread", None, "unread: tool unsure")


def test_a_question_about_doing_that_names_the_tool_still_says_what_it_needs():
    kind, tool, rule = first("How do I get the shelf readings of a greenhouse?", SENSORS)
    assert (kind, tool, rule) == ("ask", "greenhouse.climate.shelfReadings.get", "ask: howto")


@pytest.mark.parametrize("turn", ["I need concert tickets, now please.", "I want concert tickets."])
def test_a_thing_named_only_to_qualify_another_tools_thing_does_not_reach_its_tool(turn):
    _, tool, _ = first(turn, CONCERTS)
    assert tool != "Concerts_2_FindConcerts"


@pytest.mark.parametrize(
    "turn, expected",
    [
        ("find concerts in Porto", "Concerts_2_FindConcerts"),
        ("I want a concert in Porto", "Concerts_2_FindConcerts"),
        ("calculate the median score of 70, 82 and 91", "calculate_median"),
    ],
)
def test_the_tools_own_thing_or_its_own_verb_still_reach_it(turn, expected):
    _, tool, _ = first(turn, GRADES if expected == "calculate_median" else CONCERTS)
    assert tool == expected


REPORTS = [
    {
        "name": "getCashFlowReport",
        "description": "Retrieves cash flow reports of listed companies, to compare them over time.",
        "inputSchema": {
            "type": "object",
            "required": ["ticker"],
            "properties": {
                "ticker": {
                    "type": "string",
                    "description": "The company's ticker, such as 'MSFT'.",
                },
                "period": {"type": "string", "enum": ["annual", "quarter"]},
            },
        },
    }
]


def test_a_description_of_what_something_does_asks_for_nothing():
    turn = (
        "Acme's Cash Flow API provides access to cash flow reports for many listed companies."
        " This data can be used to compare companies over time."
    )
    result = plan(turn, Catalogue.from_declarations(REPORTS), "en", EMPTY)
    assert result.outcome == "unread"
    assert [s.selection.tool for s in result.steps] == [None]


@pytest.mark.parametrize(
    "turn",
    [
        "get the cash flow report of MSFT",
        "The API returns cash flow reports; get the cash flow report of MSFT",
        "The API returns cash flow reports. Get the cash flow report of MSFT",
        "The API returns cash flow reports. I need the cash flow report of MSFT",
    ],
)
def test_a_request_beside_a_description_is_still_planned(turn):
    result = plan(turn, Catalogue.from_declarations(REPORTS), "en", EMPTY)
    assert [s.selection.tool for s in result.steps] == ["getCashFlowReport"]
