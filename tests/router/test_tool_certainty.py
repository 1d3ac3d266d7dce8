"""Certainty about the tool itself: a turn that names only the kind of thing a tool does and gives
none of the values it reads is told that nothing here does that with what it said; a turn that gives
one of its values, names one of its listed values, asks for the tool's own writing action, or calls the
tool by its name and nothing else is asked for the rest (certainty_tool.py)."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.vocabulary import parse

EMPTY = parse({"language": "en"})

FERRIES = [
    {
        "name": "Ferries_2_FindFerries",
        "description": "Find ferry crossings between two ports on a given day.",
        "inputSchema": {
            "type": "object",
            "required": ["from_port", "to_port", "sailing_date"],
            "properties": {
                "from_port": {
                    "type": "string",
                    "description": "The port of departure, such as 'Lisbon'.",
                },
                "to_port": {"type": "string", "description": "The port of arrival."},
                "sailing_date": {
                    "type": "string",
                    "description": "The day of sailing, as YYYY-MM-DD.",
                },
                "cabin_class": {
                    "type": "string",
                    "enum": ["deck", "cabin", "suite"],
                    "description": "The class of cabin.",
                },
            },
        },
    },
    {
        "name": "Ferries_2_BookCrossing",
        "description": "Book seats on a ferry crossing.",
        "inputSchema": {
            "type": "object",
            "required": ["crossing_id", "seats"],
            "properties": {
                "crossing_id": {"type": "string", "description": "The crossing's identifier."},
                "seats": {"type": "integer", "description": "How many seats."},
            },
        },
    },
]


def outcome(turn: str) -> tuple[str, str | None, str]:
    result = plan(turn, Catalogue.from_declarations(FERRIES), "en", EMPTY)
    step = result.steps[0]
    return result.outcome, step.selection.tool, step.decided_by


@pytest.mark.parametrize(
    "turn",
    [
        "is it possible for you to find me a ferry?",
        "I would like a ferry, can you help?",
        "show ferries please",
    ],
)
def test_the_kind_of_request_alone_is_not_a_tool(turn):
    verdict, tool, rule = outcome(turn)
    assert (verdict, tool, rule) == ("unread", None, "unread: tool unsure")


@pytest.mark.parametrize(
    "turn",
    [
        "find me a ferry from Lisbon",  # a place for a port
        "find ferries on 2026-05-02",  # a date for the day of sailing
        "find ferries with a suite",  # one of the values the schema lists
        "book a ferry crossing",  # the tool's own writing action
        "find ferries",  # the tool called by its name: only its values are missing
    ],
)
def test_a_value_or_the_tools_own_action_makes_it_an_ask(turn):
    verdict, tool, _ = outcome(turn)
    assert verdict == "ask" and tool is not None


def test_the_reply_says_what_would_make_it_a_request():
    result = plan(
        "is it possible for you to find me a ferry?",
        Catalogue.from_declarations(FERRIES),
        "en",
        EMPTY,
    )
    assert result.guidance.outcome == "unmet_object"
    assert (
        "Nothing here does that" in result.guidance.render
        and "Ferries 2 FindFerries" in result.guidance.render
    )


@pytest.mark.parametrize(
    "turn, verdict",
    [
        ("será que você consegue encontrar uma balsa pra mim?", "unread"),
        ("encontre balsas de Lisboa", "ask"),
        ("encontre balsas", "ask"),
    ],
)
def test_the_same_in_portuguese_through_the_vocabulary(turn, verdict):
    vocabulary = parse({"language": "pt-BR", "nouns": {"balsa": "ferry", "balsas": "ferry"}})
    result = plan(turn, Catalogue.from_declarations(FERRIES), "pt-BR", vocabulary)
    assert result.outcome == verdict, result.guidance.render


COURIERS = [
    {
        "name": "assign_courier",
        "description": "Assign a courier to deliver a parcel.",
        "inputSchema": {
            "type": "object",
            "required": ["parcel_id", "courier_name"],
            "properties": {
                "parcel_id": {"type": "string", "description": "The parcel's identifier."},
                "courier_name": {
                    "type": "string",
                    "description": "Who delivers it, such as 'Ana'.",
                },
            },
        },
    },
    {
        "name": "list_depots",
        "description": "List the depots.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


@pytest.mark.parametrize("turn", ["show me the parcel in Lisbon", "find a parcel sent from Porto"])
def test_a_tool_reached_through_a_value_it_reads_is_unsure_without_that_value(turn):
    # the turn names a parcel, which assign_courier reads by, not what it does (assign): with no value
    # of the turn bound, a name elsewhere in it does not make the tool meant
    result = plan(turn, Catalogue.from_declarations(COURIERS), "en", EMPTY)
    assert (result.outcome, result.steps[0].decided_by) == ("unread", "unread: tool unsure")


@pytest.mark.parametrize(
    "turn, bound",
    [
        ("find the parcel P-4411", {"parcel_id": "P-4411"}),
        ("find parcel 4411 for Ana", {"parcel_id": "4411", "courier_name": "Ana"}),
    ],
)
def test_a_tool_reached_through_a_value_it_reads_is_asked_or_run_with_that_value(turn, bound):
    result = plan(turn, Catalogue.from_declarations(COURIERS), "en", EMPTY)
    step = result.steps[0]
    assert step.selection.tool == "assign_courier" and dict(step.selection.arguments) == bound


def _crossing(name: str, description: str) -> dict:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "required": ["from_port", "to_port", "sailing_date"],
            "properties": {
                "from_port": {"type": "string", "description": "The port of departure."},
                "to_port": {"type": "string", "description": "The port of arrival."},
                "sailing_date": {"type": "string", "description": "The day, as YYYY-MM-DD."},
            },
        },
    }


CROSSINGS = [
    _crossing("Ferries_1_FindOutboundFerry", "Find ferries for a one-way crossing."),
    _crossing("Ferries_1_FindReturnFerry", "Find ferries for a crossing and the way back."),
]


@pytest.mark.parametrize("turn", ["I would like a ferry", "I need a ferry"])
def test_a_tie_among_tools_the_turn_gives_no_value_for_is_not_offered_as_a_choice(turn):
    result = plan(turn, Catalogue.from_declarations(CROSSINGS), "en", EMPTY)
    step = result.steps[0]
    assert (result.outcome, step.decided_by, step.selection.choices) == (
        "unread",
        "unread: tool unsure",
        [],
    )
    # the reply names both and what they need, so the person can say which with its values
    assert "FindOutboundFerry or Ferries 1 FindReturnFerry, say which" in result.guidance.render
    assert "from_port, sailing_date and to_port" in result.guidance.render


@pytest.mark.parametrize("turn", ["find me a ferry from Lisbon", "find a ferry on 2026-05-02"])
def test_a_tie_with_a_value_of_theirs_is_still_asked_about(turn):
    result = plan(turn, Catalogue.from_declarations(CROSSINGS), "en", EMPTY)
    assert result.steps[0].selection.choices == sorted(t["name"] for t in CROSSINGS)


@pytest.mark.parametrize(
    "turn, verdict",
    [("eu queria uma balsa", "unread"), ("encontre uma balsa de Lisboa", "ask")],
)
def test_the_tie_in_portuguese(turn, verdict):
    vocabulary = parse({"language": "pt-BR", "nouns": {"balsa": "ferry", "balsas": "ferry"}})
    result = plan(turn, Catalogue.from_declarations(CROSSINGS), "pt-BR", vocabulary)
    assert result.outcome == verdict, result.guidance.render
    if verdict == "unread":
        assert "diga qual, e from_port, sailing_date e to_port" in result.guidance.render


CANCELLING = [
    {
        "name": "cancel_booking",
        "description": "Cancel a booking made for an order.",
        "inputSchema": {
            "type": "object",
            "required": ["order_id", "seats"],
            "properties": {
                "order_id": {"type": "string", "description": "The order's identifier."},
                "seats": {"type": "integer", "description": "How many seats."},
            },
        },
    },
    COURIERS[1],
]


@pytest.mark.parametrize("turn", ["cancel the order", "please cancel my order"])
def test_the_tools_own_writing_action_through_a_value_it_reads_is_still_asked(turn):
    # cancel_booking reached through order_id; the verb is its own action: a request to do that
    result = plan(turn, Catalogue.from_declarations(CANCELLING), "en", EMPTY)
    step = result.steps[0]
    assert (result.outcome, step.selection.tool) == ("ask", "cancel_booking")
    assert step.selection.missing == ["order_id", "seats"]
