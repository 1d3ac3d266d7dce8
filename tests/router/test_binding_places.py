"""Binding rules for places, names and labels, for catalogues the router was not written for, in English and
Brazilian Portuguese: a state or a city and its country after "in", a name beside the tool's own thing, two
words after a number, the word after "per" in a description. Turns are invented for these rules."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.vocabulary import parse
from tests.router.test_binding_rules import NUM, TEXT, _decl

PLACES = {
    "permit": [
        _decl(
            "permits.find_applications",
            {
                "company": TEXT,
                "state": {
                    "type": "string",
                    "description": "The full name of the state the permit was filed in.",
                },
            },
            ["company", "state"],
        )
    ],
    "stay": [
        _decl(
            "stays.find_rooms",
            {"location": {"type": "string", "description": "The city and state, e.g. Denver, CO."}},
            ["location"],
        )
    ],
    "climate": [
        _decl(
            "climate.get_rainfall",
            {
                "city": TEXT,
                "unit": {
                    "type": "string",
                    "enum": ["Millimeters", "Inches"],
                    "description": "The unit of the result.",
                },
            },
            ["city"],
        )
    ],
}


@pytest.mark.parametrize(
    "turn, language, name, arguments, missing",
    [
        # a state alone is the whole value where the description asks for a state and no city
        (
            "find the permit applications of the company 'Acme' in Oregon",
            "en",
            "permit",
            {"company": "Acme", "state": "Oregon"},
            [],
        ),
        (
            "encontre os pedidos de licença da empresa 'Acme' em Oregon",
            "pt-BR",
            "permit",
            {"company": "Acme", "state": "Oregon"},
            [],
        ),
        # a city alone is not "the city and state"
        ("find rooms in Denver", "en", "stay", {}, ["location"]),
        ("encontre quartos em Denver", "pt-BR", "stay", {}, ["location"]),
        ("find rooms in Denver, CO", "en", "stay", {"location": "Denver, CO"}, []),
        # a phrase after "in" that a surer pass took (a listed unit) is not a second place
        (
            "get the rainfall in Recife in Inches",
            "en",
            "climate",
            {"city": "Recife", "unit": "Inches"},
            [],
        ),
        (
            "mostre a chuva em Recife em Inches",
            "pt-BR",
            "climate",
            {"city": "Recife", "unit": "Inches"},
            [],
        ),
        ("get the rainfall in Recife in Porto", "en", "climate", {}, ["city"]),  # two places: asked
    ],
)
def test_a_place_after_its_preposition(turn, language, name, arguments, missing):
    vocabulary = parse(
        {
            "language": language,
            "nouns": {
                "pedidos": "application",
                "licenca": "permit",
                "quartos": "room",
                "chuva": "rainfall",
            }
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(PLACES[name]), language, vocabulary)
    first = result.steps[0]
    assert (result.outcome, first.decided_by) == (
        ("run", "tool: admission") if not missing else ("ask", "ask: incomplete")
    ), result.guidance.render
    assert first.selection.tool == PLACES[name][0]["name"]
    assert dict(first.selection.arguments) == arguments and first.selection.missing == missing


REGIONS = {
    "clock": [
        _decl(
            "clock.get_local_time",
            {
                "city": TEXT,
                "country": {"type": "string", "description": "The country the city is in."},
            },
            ["city", "country"],
        )
    ],
    "tide": [
        _decl(
            "tides.get_table",
            {"location": {"type": "string", "description": "The name of the city."}, "state": TEXT},
            ["location", "state"],
        )
    ],
}


@pytest.mark.parametrize(
    "turn, language, name, arguments",
    [
        # "in City, Country": the city to the city's parameter, what follows the comma to the country's or state's
        (
            "get the local time in Recife, Brazil",
            "en",
            "clock",
            {"city": "Recife", "country": "Brazil"},
        ),
        (
            "mostre a hora local em Recife, Brasil",
            "pt-BR",
            "clock",
            {"city": "Recife", "country": "Brasil"},
        ),
        (
            "what is the local time in Recife, Brazil?",
            "en",
            "clock",
            {"city": "Recife", "country": "Brazil"},
        ),
        (
            "qual é a hora local em Recife, Brasil?",
            "pt-BR",
            "clock",
            {"city": "Recife", "country": "Brasil"},
        ),
        (
            "get the tide table in Paranaguá, Paraná",
            "en",
            "tide",
            {"location": "Paranaguá", "state": "Paraná"},
        ),
        (
            "mostre a tábua de maré em Paranaguá, Paraná",
            "pt-BR",
            "tide",
            {"location": "Paranaguá", "state": "Paraná"},
        ),
        # an abbreviation after the comma, or a city alone, is asked about
        ("get the tide table in Santos, SP", "en", "tide", None),
        ("mostre a tábua de maré em Santos, SP", "pt-BR", "tide", None),
        ("get the local time in Recife", "en", "clock", None),
        ("mostre a hora local em Recife", "pt-BR", "clock", None),
    ],
)
def test_a_city_and_its_country_after_the_comma(turn, language, name, arguments):
    vocabulary = parse(
        {
            "language": language,
            "nouns": {"hora": "time", "mare": "tide", "tabua": "table"}
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(REGIONS[name]), language, vocabulary)
    first = result.steps[0]
    assert first.selection.tool == REGIONS[name][0]["name"], result.guidance.render
    if arguments is None:
        assert (result.outcome, first.decided_by) == ("ask", "ask: incomplete")
        params = list(REGIONS[name][0]["inputSchema"]["properties"])
        assert dict(first.selection.arguments) == {} and first.selection.missing == sorted(params)
    else:
        assert (result.outcome, first.decided_by) == ("run", "tool: admission")
        assert dict(first.selection.arguments) == arguments


@pytest.mark.parametrize(
    "turn, language, arguments",
    [
        # the two words after a number name it ("6 light years"): the parameter named by both takes it
        (
            "get the signal travel time from a star 6 light years away",
            "en",
            {"distance_in_light_years": "6"},
        ),
        (
            "calcule o tempo de viagem do sinal de uma estrela a 6 anos luz",
            "pt-BR",
            {"distance_in_light_years": "6"},
        ),
        (
            "get the signal travel time from a star 6 light years away at a speed of light of 300",
            "en",
            {"distance_in_light_years": "6", "speed_of_light": "300"},
        ),
        (
            "calcule o tempo de viagem do sinal de uma estrela a 6 anos luz com velocidade da luz de 300",
            "pt-BR",
            {"distance_in_light_years": "6", "speed_of_light": "300"},
        ),
    ],
)
def test_two_words_after_a_number_are_its_label(turn, language, arguments):
    tools = [
        _decl(
            "signal.travel_time",
            {"distance_in_light_years": {"type": "integer"}, "speed_of_light": {"type": "integer"}},
            ["distance_in_light_years"],
        )
    ]
    vocabulary = parse(
        {
            "language": language,
            "nouns": {
                "tempo": "time",
                "sinal": "signal",
                "viagem": "travel",
                "anos": "year",
                "luz": "light",
                "velocidade": "speed",
            }
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(tools), language, vocabulary)
    first = result.steps[0]
    assert (result.outcome, first.decided_by, first.selection.tool) == (
        "run",
        "tool: admission",
        "signal.travel_time",
    )
    assert dict(first.selection.arguments) == arguments


@pytest.mark.parametrize(
    "turn, language",
    [
        ("calculate the savings growth of a deposit of 500 over 4 years", "en"),
        ("calcule o crescimento da poupança de um depósito de 500 durante 4 anos", "pt-BR"),
    ],
)
def test_a_word_after_per_in_a_description_is_no_label_of_it(turn, language):
    # "compounded per year" counts times in a year, not years: "4 years" is the duration's
    tools = [
        _decl(
            "savings.calculate_growth",
            {
                "deposit": NUM,
                "duration": {"type": "integer", "description": "The saving duration in years."},
                "compounded": {
                    "type": "integer",
                    "description": "How many times interest is compounded per year.",
                },
            },
            ["deposit", "duration"],
        )
    ]
    vocabulary = parse(
        {
            "language": language,
            "nouns": {
                "crescimento": "growth",
                "poupanca": "saving",
                "deposito": "deposit",
                "anos": "year",
            }
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(tools), language, vocabulary)
    first = result.steps[0]
    assert (result.outcome, first.decided_by, first.selection.tool) == (
        "run",
        "tool: admission",
        "savings.calculate_growth",
    )
    assert dict(first.selection.arguments) == {"deposit": "500", "duration": "4"}


NAMED = {
    "flute": [_decl("find_flute", {"brand": TEXT, "budget": {"type": "integer"}}, ["brand"])],
    "lodge": [
        _decl(
            "lodge.book", {"roomType": TEXT, "nights": {"type": "integer"}}, ["roomType", "nights"]
        )
    ],
    "inn": [_decl("inn.book", {"inn_name": TEXT, "room_type": TEXT}, ["inn_name", "room_type"])],
    "fund": [
        _decl("fund_price", {"company": TEXT, "days": {"type": "integer"}}, ["company", "days"])
    ],
}


@pytest.mark.parametrize(
    "turn, language, name, arguments, missing",
    [
        # a name, then the tool's own thing, is the name ("Yamaha flute"), as "flauta da Yamaha" is
        ("find a Yamaha flute under 900", "en", "flute", {"brand": "Yamaha", "budget": "900"}, []),
        ("find a Yamaha flute", "en", "flute", {"brand": "Yamaha"}, []),
        ("encontre uma flauta da Yamaha", "pt-BR", "flute", {"brand": "Yamaha"}, []),
        ("encontre uma Yamaha flauta", "pt-BR", "flute", {"brand": "Yamaha"}, []),
        (
            "what is the Acme fund price for the last 3 days?",
            "en",
            "fund",
            {"company": "Acme", "days": "3"},
            [],
        ),
        (
            "qual é o preço do fundo da Acme nos últimos 3 dias?",
            "pt-BR",
            "fund",
            {"company": "Acme", "days": "3"},
            [],
        ),
        # a proper name is no kind of thing: a type parameter is asked for
        ("book the Serra lodge for 2 nights", "en", "lodge", {"nights": "2"}, ["roomType"]),
        ("reserve a pousada Serra por 2 noites", "pt-BR", "lodge", {"nights": "2"}, ["roomType"]),
        ("book a room at the Serra inn", "en", "inn", {"inn_name": "Serra"}, ["room_type"]),
        (
            "reserve um quarto na pousada Serra",
            "pt-BR",
            "inn",
            {"inn_name": "Serra"},
            ["room_type"],
        ),
        # the parameter's own word labels another value ("a deluxe room"): the name is not its value
        (
            "book a deluxe room for 2 nights at the Serra lodge",
            "en",
            "lodge",
            {"nights": "2"},
            ["roomType"],
        ),
        (
            "reserve um quarto deluxe por 2 noites na pousada Serra",
            "pt-BR",
            "lodge",
            {"nights": "2"},
            ["roomType"],
        ),
    ],
)
def test_a_name_beside_the_tools_thing(turn, language, name, arguments, missing):
    vocabulary = parse(
        {
            "language": language,
            "nouns": {
                "flauta": "flute",
                "pousada": "inn" if name == "inn" else "lodge",
                "quarto": "room",
                "noites": "night",
                "preco": "price",
                "fundo": "fund",
            }
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(NAMED[name]), language, vocabulary)
    first = result.steps[0]
    assert first.selection.tool == NAMED[name][0]["name"], result.guidance.render
    assert (result.outcome, first.decided_by) == (
        ("ask", "ask: incomplete") if missing else ("run", "tool: admission")
    )
    assert dict(first.selection.arguments) == arguments and first.selection.missing == missing


@pytest.mark.parametrize(
    "turn, language, arguments",
    [
        # a label word that starts with a parameter's short word names it: "atmospheric" is atm, "temperature" temp
        (
            "calculate the absolute pressure with an atmospheric pressure of 1 and a gauge pressure of 2",
            "en",
            {"atm_pressure": "1", "gauge_pressure": "2", "temp": "20"},
        ),
        (
            "calcule a pressão absoluta com pressão atmosférica de 1 e pressão manométrica de 2",
            "pt-BR",
            {"atm_pressure": "1", "gauge_pressure": "2", "temp": "20"},
        ),
    ],
)
def test_a_short_parameter_word_is_the_start_of_a_label(turn, language, arguments):
    tools = [
        _decl(
            "calc_absolute_pressure",
            {"atm_pressure": NUM, "gauge_pressure": NUM, "temp": NUM},
            ["atm_pressure", "gauge_pressure"],
        )
    ]
    turn += " at a temperature of 20" if language == "en" else " a uma temperatura de 20"
    vocabulary = parse(
        {
            "language": language,
            "nouns": {
                "pressao": "pressure",
                "atmosferica": "atmospheric",
                "manometrica": "gauge",
                "absoluta": "absolute",
                "temperatura": "temperature",
            }
            if language == "pt-BR"
            else {},
        }
    )
    result = plan(turn, Catalogue.from_declarations(tools), language, vocabulary)
    first = result.steps[0]
    assert (result.outcome, first.decided_by, first.selection.tool) == (
        "run",
        "tool: admission",
        "calc_absolute_pressure",
    )
    assert dict(first.selection.arguments) == arguments
