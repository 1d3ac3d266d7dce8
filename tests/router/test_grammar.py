"""The grammar that reads catalogues the router was not written for: tool names, verb families,
contractions, participles, binding by label and type, asks where binding is not sure, known values.
Turns are new ones written for these rules, in English and Brazilian Portuguese."""

from __future__ import annotations

from functools import lru_cache

import pytest

from server.router import Catalogue, plan
from server.router.names import parse_name, split_words
from server.router.vocabulary import parse


def _decl(name, properties, required=(), description=""):
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": properties, "required": list(required)},
    }


NUM = {"type": "number"}
TEXT = {"type": "string"}
FOREIGN = [
    _decl(
        "weatherService.getWeather",
        {"city": TEXT, "units": {"type": "string", "enum": ["metric", "imperial"]}},
        ["city"],
    ),
    _decl("geometry.rectangle_area", {"width": NUM, "length": NUM}, ["width", "length"]),
    _decl(
        "currency_converter",
        {
            "amount": NUM,
            "from_currency": {"type": "string", "description": "ISO code"},
            "to_currency": {"type": "string", "description": "ISO code"},
        },
        ["amount", "from_currency", "to_currency"],
    ),
    _decl(
        "restaurant.reserve_table",
        {"restaurant_name": TEXT, "party_size": {"type": "integer"}},
        ["restaurant_name", "party_size"],
    ),
    _decl(
        "stats.calculate_average",
        {"numbers": {"type": "array", "items": {"type": "number"}}},
        ["numbers"],
    ),
    _decl("whois.lookup_domain", {"domain": TEXT}, ["domain"]),
    _decl("thermo.calculate_boiling_point", {"substance": TEXT}, ["substance"]),
    _decl("messages.send_note", {"recipient": TEXT, "text": TEXT}, ["recipient", "text"]),
    _decl("get_route", {"origin": TEXT, "destination": TEXT}, ["origin", "destination"]),
]


@lru_cache
def go() -> Catalogue:
    return Catalogue.from_declarations(FOREIGN)


def first(turn: str, language: str, context: dict | None = None):
    result = plan(turn, go(), language, parse({"language": language}), context)
    return result, result.steps[0]


@pytest.mark.parametrize(
    "name, action, head, qualifiers, namespace",
    [
        ("weatherService.getWeather", "get", "weather", (), ("weather", "service")),
        ("soccer_stat.get_player_stats", "get", "stat", ("player",), ("soccer",)),
        ("lawsuit_details.find", "search", "lawsuit", ("detail",), ()),
        ("Events_3_FindEvents", "search", "event", (), ()),
        ("currency_converter", "compute", "currency", (), ()),
        ("get_exchange_rate_with_fee", "get", "rate", ("exchange", "fee"), ()),
        ("math.hypot", None, "hypot", (), ("math",)),
    ],
)
def test_tool_names_are_parsed(name, action, head, qualifiers, namespace):
    parsed = parse_name(name)
    assert (parsed.action, parsed.head, parsed.qualifiers) == (action, head, qualifiers)
    assert set(parsed.namespace) == set(namespace) - {head}
    assert split_words("getHTTPStatus_v2") == ["get", "http", "status", "v", "2"]


@pytest.mark.parametrize(
    "turn, language, tool, arguments, outcome, rule, missing",
    [
        # read verbs reach read tools; contractions are read
        (
            "find the weather in Lisbon",
            "en",
            "weatherService.getWeather",
            {"city": "Lisbon"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "what's the weather in Lisbon?",
            "en",
            "weatherService.getWeather",
            {"city": "Lisbon"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "mostre o weather em Lisboa",
            "pt-BR",
            "weatherService.getWeather",
            {"city": "Lisboa"},
            "run",
            "tool: admission",
            [],
        ),
        # numbers by the label beside them, in either order of the words
        (
            "compute the area of a rectangle with width 3 and length 8",
            "en",
            "geometry.rectangle_area",
            {"length": "8", "width": "3"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "compute the area of a rectangle with length 8 and width 3",
            "en",
            "geometry.rectangle_area",
            {"length": "8", "width": "3"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "calcule a area do rectangle com width 3 e length 8",
            "pt-BR",
            "geometry.rectangle_area",
            {"length": "8", "width": "3"},
            "run",
            "tool: admission",
            [],
        ),
        # a participle is not the verb; two numbers with no labels are asked about, not bound in order
        (
            "compute the area of a rectangle given the sides 3 and 8",
            "en",
            "geometry.rectangle_area",
            {},
            "ask",
            "ask: incomplete",
            ["length", "width"],
        ),
        (
            "calcule a area do rectangle dados os lados 3 e 8",
            "pt-BR",
            "geometry.rectangle_area",
            {},
            "ask",
            "ask: incomplete",
            ["length", "width"],
        ),
        # a name the parameter does not take by its words is asked for
        (
            "reserve a table for 4 at Tasca Lisboa",
            "en",
            "restaurant.reserve_table",
            {"party_size": "4"},
            "ask",
            "ask: incomplete",
            ["restaurant_name"],
        ),
        (
            "reserve uma table para 4 no Tasca Lisboa",
            "pt-BR",
            "restaurant.reserve_table",
            {"party_size": "4"},
            "ask",
            "ask: incomplete",
            ["restaurant_name"],
        ),
        # lists and domains stay whole
        (
            "calculate the average of [1, 2, 3]",
            "en",
            "stats.calculate_average",
            {"numbers": "[1.0, 2.0, 3.0]"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "calcule o average de [1, 2, 3]",
            "pt-BR",
            "stats.calculate_average",
            {"numbers": "[1.0, 2.0, 3.0]"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "look up the domain google.com",
            "en",
            "whois.lookup_domain",
            {"domain": "google.com"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "consulte o domain google.com",
            "pt-BR",
            "whois.lookup_domain",
            {"domain": "google.com"},
            "run",
            "tool: admission",
            [],
        ),
        # from X to Y to the origin and destination a read tool names: not a destination to decline
        (
            "get the route from Lisbon to Porto",
            "en",
            "get_route",
            {"destination": "Porto", "origin": "Lisbon"},
            "run",
            "tool: admission",
            [],
        ),
        (
            "mostre a route de Lisboa para Porto",
            "pt-BR",
            "get_route",
            {"destination": "Porto", "origin": "Lisboa"},
            "run",
            "tool: admission",
            [],
        ),
        # an enum value by its word; the required city the turn does not give is asked for
        (
            "show the weather in metric units",
            "en",
            "weatherService.getWeather",
            {"units": "metric"},
            "ask",
            "ask: incomplete",
            ["city"],
        ),
        # free text only where it is whole: the note's text is asked for
        (
            "send a note to Bruno",
            "en",
            "messages.send_note",
            {"recipient": "Bruno"},
            "ask",
            "ask: incomplete",
            ["text"],
        ),
    ],
)
def test_binding_by_what_each_parameter_is(turn, language, tool, arguments, outcome, rule, missing):
    result, step = first(turn, language)
    assert (result.outcome, step.decided_by, step.selection.tool) == (outcome, rule, tool)
    assert dict(step.selection.arguments) == arguments
    assert step.selection.missing == missing


@pytest.mark.parametrize(
    "turn, language",
    [
        ("book the weather in Lisbon", "en"),  # a write verb never reaches a read tool
        ("reserve o weather em Lisboa", "pt-BR"),
        (
            "what is the freezing point of water?",
            "en",
        ),  # another modifier: not what boiling_point is about
        ("qual é o freezing point da água?", "pt-BR"),
    ],
)
def test_no_tool_is_guessed(turn, language):
    result, step = first(turn, language)
    assert step.selection.tool is None and not step.selection.choices
    assert result.outcome == "unread"


def test_a_question_of_knowledge_is_not_a_call():
    for turn, language in (
        ("what is the boiling point?", "en"),
        ("qual é o boiling point?", "pt-BR"),
    ):
        result, step = first(turn, language)
        assert (result.outcome, step.decided_by) == ("unread", "unread: question of knowledge")


def test_money_and_ordinals_keep_their_whole_value():
    catalogue = Catalogue.from_declarations(
        [
            _decl(
                "loan_payment.calculate",
                {"principal": NUM, "years": {"type": "integer"}},
                ["principal", "years"],
            ),
            _decl("get_ranking", {"position": {"type": "integer"}}, ["position"]),
        ]
    )
    result = plan(
        "calculate the loan payment for a principal of $150,000. over 30 years",
        catalogue,
        "en",
        parse({"language": "en"}),
    )
    assert dict(result.steps[0].selection.arguments) == {"principal": "150000", "years": "30"}
    result = plan(
        "calcule o payment do loan com principal de R$ 150.000,00 em 30 years",
        catalogue,
        "pt-BR",
        parse({"language": "pt-BR"}),
    )
    assert dict(result.steps[0].selection.arguments) == {"principal": "150000.00", "years": "30"}
    result = plan("get the ranking in 3rd position", catalogue, "en", parse({"language": "en"}))
    assert dict(result.steps[0].selection.arguments) == {"position": "3"}


KNOWN = [
    _decl("ask", {"member": TEXT, "question": TEXT}, ["member", "question"]),
    _decl(
        "view_member",
        {"handle": {"type": "string", "x-known-values": ["ana", "bruno"]}},
        ["handle"],
    ),
]


@pytest.mark.parametrize(
    "turn, language, member, question",
    [
        (
            "ask ana what she thinks about rust in production",
            "en",
            "ana",
            "what she thinks about rust in production",
        ),
        (
            "pergunte para bruno o que ele acha de rust em produção",
            "pt-BR",
            "bruno",
            "o que ele acha de rust em produção",
        ),
    ],
)
def test_known_values_from_context(turn, language, member, question):
    catalogue = Catalogue.from_declarations(KNOWN)
    context = {"known_values": {"member": ["ana", "bruno"]}}
    result = plan(turn, catalogue, language, parse({"language": language}), context)
    step = result.steps[0]
    assert (result.outcome, step.selection.tool) == ("run", "ask")
    assert dict(step.selection.arguments) == {"member": member, "question": question}
    # a handle the caller cannot see is asked for, never guessed
    result = plan(
        turn.replace(member, "zed"), catalogue, language, parse({"language": language}), context
    )
    assert result.outcome == "ask" and result.steps[0].selection.missing == ["member"]


def test_known_values_declared_in_the_schema():
    catalogue = Catalogue.from_declarations(KNOWN)
    for turn, language in (("view member bruno", "en"), ("mostre o member bruno", "pt-BR")):
        result = plan(turn, catalogue, language, parse({"language": language}))
        assert dict(result.steps[0].selection.arguments) == {"handle": "bruno"}
    result = plan("view member zed", catalogue, "en", parse({"language": "en"}))
    assert result.outcome == "ask" and result.steps[0].selection.missing == ["handle"]


def test_a_past_question_about_replies_reads_the_inbox():
    from tests.router.conftest import catalogue, vocabulary

    for turn, language in (
        ("alguém respondeu minhas perguntas?", "pt-BR"),
        ("did anyone answer my questions?", "en"),
    ):
        result = plan(turn, catalogue("club"), language, vocabulary("club", language))
        assert (result.outcome, result.steps[0].decided_by, result.steps[0].selection.tool) == (
            "run",
            "tool: past tense",
            "inbox",
        )


def test_same_turn_same_bytes_on_a_foreign_catalogue():
    again = Catalogue.from_declarations(list(reversed(FOREIGN)))
    for turn, language in (
        ("compute the area of a rectangle with width 3 and length 8", "en"),
        ("mostre a route de Lisboa para Porto", "pt-BR"),
    ):
        vocabulary = parse({"language": language})
        assert (
            plan(turn, go(), language, vocabulary).canonical_json()
            == plan(turn, again, language, vocabulary).canonical_json()
        )
