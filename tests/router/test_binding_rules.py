"""Binding rules for catalogues the router was not written for, one test per rule, in English and
Brazilian Portuguese: values named in a row, ranges, one-letter names, percents as the parameter says,
values a description lists, whole names after a preposition, the unit the turn states.
Turns are invented for these rules; none is taken from a development set."""

from __future__ import annotations

from functools import lru_cache

import pytest

from server.router import Catalogue, plan
from server.router.vocabulary import parse


def _decl(name, properties, required=(), description=""):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": list(required)}}


NUM = {"type": "number"}
TEXT = {"type": "string"}


def _num(description):
    return {"type": "number", "description": description}


TOOLS = {
    "lcm": [_decl("math.least_common_multiple", {"num1": NUM, "num2": NUM}, ["num1", "num2"])],
    "vector": [_decl("vector.compute_norm", {"x": NUM, "y": NUM, "z": NUM}, ["x", "y"])],
    "line": [_decl("geometry.compute_line", {"a": NUM, "b": NUM, "c": NUM}, ["a", "b", "c"])],
    "census": [_decl("census.get_records", {"region": TEXT, "start_year": {"type": "integer"},
                                            "end_year": {"type": "integer"}}, ["start_year", "end_year"])],
    "loan": [_decl("loan.calculate_payment", {"principal": NUM,
                                              "rate": _num("The yearly rate, as a decimal (4% is 0.04)."),
                                              "years": {"type": "integer"}}, ["principal", "rate", "years"])],
    "tip": [_decl("tip.calculate_amount", {"bill": NUM, "share": _num("The tip in percentage.")},
                  ["bill", "share"])],
    "vague": [_decl("tax.calculate_due", {"income": NUM, "tax_rate": _num("The rate of tax.")},
                    ["income", "tax_rate"])],
    "traffic": [_decl("traffic.get_estimate", {
        "origin": TEXT, "destination": TEXT,
        "period": {"type": "string", "description": "When: 'now' for the present, 'weekend' for the next weekend."}},
        ["origin", "destination"])],
    "ship": [_decl("shipping.get_quote", {"origin": TEXT, "destination": TEXT}, ["origin", "destination"])],
    "prism": [_decl("geometry.calculate_prism_volume", {"side": NUM, "height": NUM, "unit": TEXT}, ["side", "height"])],
    "flight": [_decl("flight.book_seat", {"origin": TEXT, "destination": TEXT, "direct_flight": {"type": "boolean"},
                                          "include_meal": {"type": "boolean"}}, ["origin", "destination"])],
    "hotel": [_decl("hotel.search_rooms", {
        "city": TEXT,
        "amenities": {"type": "array", "items": {"type": "string", "enum": ["Pool", "Wi-Fi", "Parking", "Gym"]}},
        "style": {"type": "string", "description": "The kind of stay, e.g. boutique, hostel."}}, ["city"])],
    "court": [_decl("court.get_schedule", {"court_location": TEXT, "year": {"type": "integer"}},
                    ["court_location", "year"])],
    "radius": [_decl("parks.search_nearby", {"city": TEXT, "radius": _num("Search radius in kilometers.")},
                     ["city", "radius"])],
    "rivals": [_decl("market.compare_rivals", {"company1": TEXT, "company2": TEXT}, ["company1", "company2"])],
    "house": [_decl("house.estimate_price", {"rooms": {"type": "integer"}, "year": {"type": "integer"},
                                             "area": NUM}, ["rooms", "year", "area"])],
    "route": [_decl("maps.get_route", {"start": TEXT, "end": TEXT, "avoid": {
        "type": "array", "items": {"type": "string", "enum": ["tolls", "highways", "ferries"]}}}, ["start", "end"])],
    "forecast": [_decl("stock.predict_price", {"company": TEXT, "model": TEXT, "days": {"type": "integer"}},
                       ["company", "days"])],
    "census2": [_decl("census.compute_density", {"country": TEXT, "year": TEXT, "population": {"type": "integer"}},
                      ["country", "year", "population"])],
    "records": [_decl("court.get_records", {"county": TEXT, "case_number": TEXT}, ["county", "case_number"])],
    "quotes": [_decl("quotes.get_prices", {"companies": {"type": "array", "items": {"type": "string"}}},
                     ["companies"])],
    "contract": [_decl("contract.create_lease", {"parties": {"type": "array", "items": {"type": "string"}},
                                                "city": TEXT}, ["parties", "city"])],
    "history": [_decl("quotes.get_history", {"company": TEXT, "duration": {"type": "string"}},
                      ["company", "duration"])],
    "shares": [_decl("shares.get_dividend", {"company": TEXT, "years": {"type": "integer"}}, ["company"])],
    "trip": [_decl("trip.get_duration", {"origin": TEXT, "destination": TEXT,
                                         "mode": {"type": "string", "description": "How to travel."}},
                   ["origin", "destination"])],
}


@lru_cache
def catalogue(name: str) -> Catalogue:
    return Catalogue.from_declarations(TOOLS[name])


# The words Portuguese speakers use for these tools' English nouns: a club's vocabulary file.
NOUNS = {"minimo": "least", "multiplo": "multiple", "comum": "common", "norma": "norm", "vetor": "vector", "registros": "record",
         "censo": "census", "reta": "line", "emprestimo": "loan", "pagamento": "payment", "cotacao": "quote",
         "frete": "shipping", "estimativa": "estimate", "transito": "traffic", "gorjeta": "tip",
         "dividendos": "dividend", "volume": "volume", "prisma": "prism", "voo": "flight", "lado": "side", "altura": "height", "quartos": "rooms",
         "hotel": "hotel", "agenda": "schedule", "tribunal": "court", "rivais": "rival", "mercado": "market", "casa": "house", "historico": "history", "densidade": "density", "populacao": "population", "pais": "country",
         "registros": "record", "cotacoes": "price", "precos": "price", "contrato": "lease", "aluguel": "lease", "rota": "route", "previsao": "price", "acao": "stock",
         "preco": "price", "comodos": "rooms", "ano": "year", "area": "area", "construcao": "construction", "acoes": "shares", "viagem": "trip", "duracao": "duration"}


def step(turn: str, name: str, language: str = "en"):
    vocabulary = parse({"language": language, "nouns": NOUNS if language == "pt-BR" else {}})
    result = plan(turn, catalogue(name), language, vocabulary)
    return result, result.steps[0]


@pytest.mark.parametrize("turn, name, language, arguments", [
    ("compute the least common multiple of 8 and 12", "lcm", "en", {"num1": "8", "num2": "12"}),
    ("calcule o minimo multiplo comum de 8 e 12", "lcm", "pt-BR", {"num1": "8", "num2": "12"}),
    ("compute the norm of the vector 3, 4", "vector", "en", {"x": "3", "y": "4"}),
    ("calcule a norma do vetor 3, 4 e 12", "vector", "pt-BR", {"x": "3", "y": "4", "z": "12"}),
])
def test_values_in_a_row_go_to_parameters_named_in_a_row(turn, name, language, arguments):
    result, first = step(turn, name, language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == arguments


def test_a_row_that_cannot_take_every_value_is_asked_about():
    result, first = step("compute the least common multiple of 8, 12 and 20", "lcm")
    assert result.outcome == "ask" and first.selection.missing == ["num1", "num2"]


@pytest.mark.parametrize("turn, language", [
    ("get the census records from 1990 to 2000", "en"),
    ("get the census records between 1990 and 2000", "en"),
    ("mostre os registros do censo de 1990 a 2000", "pt-BR"),
    ("mostre os registros do censo entre 1990 e 2000", "pt-BR"),
])
def test_a_range_goes_to_the_start_and_the_end(turn, language):
    result, first = step(turn, "census", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"end_year": "2000", "start_year": "1990"}


@pytest.mark.parametrize("turn, language", [
    ("compute the line with a = 2, b = -1 and c=7", "en"),
    ("calcule a reta com a=2, b=-1, c = 7", "pt-BR"),
])
def test_a_one_letter_name_before_equals_labels_its_value(turn, language):
    result, first = step(turn, "line", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"a": "2", "b": "-1", "c": "7"}


@pytest.mark.parametrize("turn, name, language, key, value", [
    ("calculate the loan payment on a principal of 20000 at 4.5% for 10 years", "loan", "en", "rate", "0.045"),
    ("calcule o pagamento do empréstimo com principal de 20000 a 4,5% por 10 anos", "loan", "pt-BR", "rate",
     "0.045"),
    ("calculate the loan payment on 20000 at a rate of 4.5% for 10 years", "loan", "en", "rate", "0.045"),
    ("calculate the tip amount on a bill of 80 with a share of 15%", "tip", "en", "share", "15"),
])
def test_a_percent_binds_as_the_description_says(turn, name, language, key, value):
    result, first = step(turn, name, language)
    assert first.selection.arguments[key] == value, result.guidance.render


def test_a_percent_the_description_does_not_place_is_asked_about():
    result, first = step("calculate the tax due on an income of 50000 with a tax rate of 12%", "vague")
    assert result.outcome == "ask" and first.selection.missing == ["tax_rate"]
    assert first.selection.arguments == {"income": "50000"}


@pytest.mark.parametrize("turn, language", [
    ("get the traffic estimate from Porto Alegre to Gramado this weekend", "en"),
    ("mostre a estimativa de trânsito de Porto Alegre para Gramado no weekend", "pt-BR"),
])
def test_a_value_the_description_lists_binds_when_the_turn_names_it(turn, language):
    result, first = step(turn, "traffic", language)
    assert first.selection.arguments.get("period") == "weekend", result.guidance.render


def test_a_description_with_examples_lists_nothing():
    from server.router.catalogue import _listed
    assert _listed("The city, e.g. 'Boston' or 'Austin'.") == ()
    assert _listed("Sort order: 'asc' or 'desc'.") == ("asc", "desc")
    assert _listed("Features to avoid. Default is ['tolls', 'ferries']") == ()


@pytest.mark.parametrize("turn, language, destination", [
    ("get a shipping quote from Austin to Washington D.C. tomorrow", "en", "Washington D.C."),
    ("get a shipping quote from Austin to New York City using the cheapest carrier", "en", "New York City"),
    ("mostre a cotação de frete de Curitiba para São José dos Campos usando o correio", "pt-BR",
     "São José dos Campos"),
])
def test_a_name_after_a_preposition_is_the_whole_name(turn, language, destination):
    result, first = step(turn, "ship", language)
    assert result.outcome == "run", result.guidance.render
    assert first.selection.arguments["destination"] == destination


def test_a_name_that_runs_on_into_lowercase_words_is_asked_about():
    result, first = step("get a shipping quote from Austin to Boston harbour warehouses", "ship")
    assert result.outcome == "ask" and "destination" in first.selection.missing


@pytest.mark.parametrize("turn, language", [
    ("get the dividend of Petrobras shares for the last 3 years", "en"),
    ("mostre os dividendos das ações da Petrobras nos últimos 3 anos", "pt-BR"),
])
def test_one_name_left_goes_to_the_one_parameter_that_needs_a_name(turn, language):
    result, first = step(turn, "shares", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"company": "Petrobras", "years": "3"}


@pytest.mark.parametrize("turn", [
    "get the dividend of Vale or Petrobras shares",  # two names: which?
    "get the dividend of Windows 11 shares",  # a name that may go on into its number
    "get the dividend paid in Brazil",  # a place, after a preposition no parameter here takes
    "get the dividend for Friday",  # a day is a time, not a name
])
def test_a_name_that_is_not_plainly_the_one_value_is_asked_for(turn):
    result, first = step(turn, "shares")
    assert result.outcome == "ask" and first.selection.missing == ["company"], result.guidance.render


@pytest.mark.parametrize("turn, language", [
    ("get the trip duration from Recife to Natal by bus", "en"),
    ("mostre a duração da viagem de Recife para Natal usando o ônibus", "pt-BR"),
])
def test_a_means_no_parameter_took_is_asked_about(turn, language):
    result, first = step(turn, "trip", language)
    assert result.outcome == "ask" and first.selection.missing == ["mode"], result.guidance.render
    assert dict(first.selection.arguments) == {"destination": "Natal", "origin": "Recife"}


def test_without_a_means_the_trip_runs():
    result, first = step("get the trip duration from Recife to Natal", "trip")
    assert result.outcome == "run" and dict(first.selection.arguments) == {"destination": "Natal", "origin": "Recife"}


def test_a_pronoun_after_a_comma_is_not_part_of_a_place():
    result, first = step("get a shipping quote from Austin to New York City, I need it soon", "ship")
    assert first.selection.arguments["destination"] == "New York City"


@pytest.mark.parametrize("turn, language, arguments", [
    ("calculate the prism volume with a side of 3 cm and a height of 12 cm", "en",
     {"height": "12", "side": "3", "unit": "cm"}),
    ("calculate the prism volume with side 3cm and height 12cm", "en", {"height": "12", "side": "3", "unit": "cm"}),
    ("calcule o volume do prisma com lado de 3 metros e altura de 12 metros", "pt-BR",
     {"height": "12", "side": "3", "unit": "metros"}),
])
def test_the_unit_the_turn_writes_goes_to_the_unit_parameter(turn, language, arguments):
    result, first = step(turn, "prism", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == arguments


def test_two_units_are_asked_about():
    result, first = step("calculate the prism volume with a side of 3 cm and a height of 1 m", "prism")
    assert result.outcome == "ask" and first.selection.missing == ["unit"]


@pytest.mark.parametrize("turn, language, arguments", [
    ("book a direct flight seat from Lima to Quito", "en",
     {"destination": "Quito", "direct_flight": "true", "origin": "Lima"}),
    ("book a flight seat from Lima to Quito including the meal", "en",
     {"destination": "Quito", "include_meal": "true", "origin": "Lima"}),
    ("book a flight seat from Lima to Quito without a meal", "en",
     {"destination": "Quito", "include_meal": "false", "origin": "Lima"}),
])
def test_a_flag_named_whole_or_after_a_word_that_includes(turn, language, arguments):
    result, first = step(turn, "flight", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == arguments


def test_a_flag_only_mentioned_is_asked_about():
    result, first = step("book a flight seat from Lima to Quito, is the flight direct?", "flight")
    assert result.outcome == "ask" and "direct_flight" in first.selection.missing


@pytest.mark.parametrize("turn, language, amenities", [
    ("search hotel rooms in Lisbon with free Wi-Fi and a pool", "en", ["Wi-Fi", "Pool"]),
    ("procure quartos de hotel em Lisboa com piscina, gym e parking", "pt-BR", ["Gym", "Parking"]),
])
def test_a_list_of_named_values_takes_the_ones_the_turn_names_in_its_order(turn, language, amenities):
    import json
    result, first = step(turn, "hotel", language)
    assert result.outcome == "run", result.guidance.render
    assert json.loads(first.selection.arguments["amenities"]) == amenities


def test_a_word_the_description_gives_as_an_example_is_asked_about():
    result, first = step("search hotel rooms in Lisbon, a boutique one", "hotel")
    assert result.outcome == "ask" and first.selection.missing == ["style"]
    assert first.selection.arguments == {"city": "Lisbon"}


@pytest.mark.parametrize("turn, language", [
    ("get the schedule of the Porto Alegre court for 2025", "en"),
    ("get the court schedule in Porto Alegre court for 2025", "en"),
])
def test_a_name_then_its_parameter_word_is_that_parameter_value(turn, language):
    result, first = step(turn, "court", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"court_location": "Porto Alegre", "year": "2025"}


def test_the_second_word_of_a_contraction_is_not_a_name():
    result, first = step("What's the dividend of the shares?", "shares")
    assert result.outcome != "run"
    assert "company" not in first.selection.arguments


@pytest.mark.parametrize("turn, language", [
    ("get the dividend of Petrobras shares for the last three years", "en"),
    ("mostre os dividendos das ações da Petrobras nos últimos três anos", "pt-BR"),
])
def test_a_number_in_words_is_a_number_where_the_turn_writes_none_in_digits(turn, language):
    result, first = step(turn, "shares", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"company": "Petrobras", "years": "3"}


def test_a_number_in_words_beside_digits_stays_a_word():
    from server.router.tokens import tokenize
    assert [t.kind for t in tokenize("two sides of 4 and 5", "en")][:2] == ["word", "word"]
    assert [(t.text, t.kind) for t in tokenize("duas semanas", "pt-BR")][0] == ("2", "number")


@pytest.mark.parametrize("turn, outcome", [
    ("search parks nearby within 15km of Manaus", "run"),
    ("search parks nearby within 15mi of Manaus", "ask"),  # miles, where the description says kilometers
])
def test_a_unit_symbol_binds_where_the_description_names_that_unit(turn, outcome):
    result, first = step(turn, "radius")
    assert result.outcome == outcome, result.guidance.render
    if outcome == "run":
        assert dict(first.selection.arguments) == {"city": "Manaus", "radius": "15"}
    else:
        assert first.selection.missing == ["radius"]


@pytest.mark.parametrize("turn, language, name, arguments", [
    ("get the shipping quote between Porto Alegre and Buenos Aires", "en", "ship",
     {"destination": "Buenos Aires", "origin": "Porto Alegre"}),
    ("compare the market rivals between Natura and Boticário", "en", "rivals",
     {"company1": "Natura", "company2": "Boticário"}),
    ("compare os rivais de mercado entre Natura e Boticário", "pt-BR", "rivals",
     {"company1": "Natura", "company2": "Boticário"}),
])
def test_between_two_names_fills_a_pair_in_order(turn, language, name, arguments):
    result, first = step(turn, name, language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == arguments


def test_a_name_another_noun_labels_is_not_the_lone_value():
    result, first = step("get the dividend of the fund XPTO", "shares")
    assert result.outcome == "ask" and first.selection.missing == ["company"]


@pytest.mark.parametrize("turn, language", [
    ("estimate the house price with rooms as 4, year of construction is 1987 and area = 120", "en"),
    ("estime o preço da casa com cômodos como 4, ano de construção 1987 e área = 120", "pt-BR"),
])
def test_labels_with_as_of_and_equals(turn, language):
    result, first = step(turn, "house", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"area": "120", "rooms": "4", "year": "1987"}


@pytest.mark.parametrize("turn, arguments", [
    ("calculate the prism volume with side and height as 3cm and 12cm", {"height": "12", "side": "3", "unit": "cm"}),
    ("calculate the prism volume with height and side of 12 and 3", {"height": "12", "side": "3"}),
])
def test_two_labels_then_two_values_respectively(turn, arguments):
    result, first = step(turn, "prism")
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == arguments


def test_a_list_of_labels_does_not_label_the_first_value_alone():
    result, first = step("calculate the prism volume with side and height as 3 cm", "prism")
    assert result.outcome == "ask" and "side" in first.selection.missing


@pytest.mark.parametrize("turn, language", [
    ("get the route from Belo Horizonte to Vitória avoiding ferries and toll roads", "en"),
    ("mostre a rota de Belo Horizonte para Vitória evitando ferries e tolls", "pt-BR"),
])
def test_a_start_and_an_end_named_by_places(turn, language):
    import json
    result, first = step(turn, "route", language)
    assert result.outcome == "run", result.guidance.render
    arguments = dict(first.selection.arguments)
    assert (arguments["start"], arguments["end"]) == ("Belo Horizonte", "Vitória")
    assert sorted(json.loads(arguments["avoid"])) == ["ferries", "tolls"]


def test_one_name_for_the_one_required_name_leaves_the_optional_ones_unset():
    result, first = step("predict the stock price for Embraer for the next 5 days", "forecast")
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"company": "Embraer", "days": "5"}


@pytest.mark.parametrize("turn, language", [
    ("compute the census density for Chile in 2021 with a population of 19.5 million", "en"),
    ("calcule a densidade do censo para o Chile em 2021 com população de 19,5 milhões", "pt-BR"),
])
def test_a_year_after_in_and_a_number_in_millions(turn, language):
    result, first = step(turn, "census2", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"country": "Chile", "population": "19500000", "year": "2021"}


def test_a_county_is_a_place():
    result, first = step("get the court records for case number AB-778 in Marin County", "records")
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"case_number": "AB-778", "county": "Marin County"}


@pytest.mark.parametrize("turn, language, names", [
    ("get the prices of Vale, Itaú and Ambev", "en", ["Vale", "Itaú", "Ambev"]),
    ("mostre os preços de Vale e Ambev", "pt-BR", ["Vale", "Ambev"]),
])
def test_names_joined_by_and_fill_the_one_list(turn, language, names):
    import json
    result, first = step(turn, "quotes", language)
    assert result.outcome == "run", result.guidance.render
    assert json.loads(first.selection.arguments["companies"]) == names


def test_between_two_names_fills_the_one_list_of_parties():
    import json
    result, first = step("create a lease between Joana and Pedro in Recife", "contract")
    assert result.outcome == "run", result.guidance.render
    assert json.loads(first.selection.arguments["parties"]) == ["Joana", "Pedro"]
    assert first.selection.arguments["city"] == "Recife"


@pytest.mark.parametrize("turn, language, duration", [
    ("get the quotes history of Natura for the last 2 weeks", "en", "2 weeks"),
    ("mostre o histórico de cotações da Natura nos últimos 3 meses", "pt-BR", "3 meses"),
])
def test_a_span_of_time_as_written_for_a_duration(turn, language, duration):
    result, first = step(turn, "history", language)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"company": "Natura", "duration": duration}


@pytest.mark.parametrize("turn, language, arguments, outcome", [
    ("get the league standings of the 2023 season", "en", {"season": "2023"}, "run"),
    ("mostre a classificação da liga da temporada 2023", "pt-BR", {"season": "2023"}, "run"),
    ("get the league standings of the 2022-2023 season", "en", {}, "ask"),  # one value written as two numbers
])
def test_a_number_labelled_for_a_text_parameter(turn, language, arguments, outcome):
    tools = [_decl("league.get_standings", {"season": TEXT}, ["season"])]
    vocabulary = parse({"language": language, "nouns": {"classificacao": "standing", "liga": "league",
                                                        "temporada": "season"} if language == "pt-BR" else {}})
    result = plan(turn, Catalogue.from_declarations(tools), language, vocabulary)
    assert result.outcome == outcome, result.guidance.render
    assert dict(result.steps[0].selection.arguments) == arguments
