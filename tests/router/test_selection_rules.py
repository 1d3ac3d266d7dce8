"""Selection and reading rules for catalogues the router was not written for: a verb's form after a
preposition is a noun, a possessive is no modifier, the participle of a tool's own verb is no rival
modifier, abbreviations spelled with their small words, qualifiers that are never the thing, dates with
dashes, possessive names. Turns are invented for these rules, in English and Brazilian Portuguese."""

from __future__ import annotations

import pytest

from server.router import Catalogue, plan
from server.router.names import parse_name
from server.router.reader import read
from server.router.vocabulary import parse


def _decl(name, properties, required=()):
    return {
        "name": name,
        "description": "",
        "inputSchema": {"type": "object", "properties": properties, "required": list(required)},
    }


NUM = {"type": "number"}
TEXT = {"type": "string"}


def step(turn, declarations, language="en", nouns=None):
    vocabulary = parse({"language": language, "nouns": nouns or {}})
    result = plan(turn, Catalogue.from_declarations(declarations), language, vocabulary)
    return result, result.steps[0]


def test_a_verb_form_after_a_preposition_is_a_noun():
    assert read("what is the cost per share of the fund?", "en").form.predicate is None
    assert read("share the report with Ana", "en").form.predicate == "send"


def test_a_possessive_is_an_owner_not_a_modifier():
    tools = [
        _decl(
            "calculate_return_on_assets",
            {"net_income": NUM, "assets": NUM},
            ["net_income", "assets"],
        )
    ]
    result, first = step(
        "calculate the bank's return on assets with net income of 30 and assets of 600", tools
    )
    assert result.outcome == "run", result.guidance.render
    assert first.selection.tool == "calculate_return_on_assets"


def test_the_participle_of_the_tools_own_verb_is_no_rival_modifier():
    tools = [
        _decl("estimate_pension_payout", {"salary": NUM}, ["salary"]),
        _decl("get_bonus_payout", {"salary": NUM}, ["salary"]),
    ]
    result, first = step("what is the estimated pension payout for a salary of 4000?", tools)
    assert first.selection.tool == "estimate_pension_payout", result.guidance.render
    result, first = step("what is the yearly payout for a salary of 4000?", tools)
    assert first.selection.tool != "estimate_pension_payout"


def test_an_abbreviation_is_spelled_with_its_small_words():
    tools = [_decl("compute_ror", {"num1": NUM, "num2": NUM}, ["num1", "num2"])]
    result, first = step("compute the rate of return for 300 and 20", tools)
    assert first.selection.tool == "compute_ror", result.guidance.render
    assert dict(first.selection.arguments) == {"num1": "300", "num2": "20"}


def test_a_qualifier_in_a_tool_name_is_never_its_thing():
    assert parse_name("probabilities.calculate_single").head == "probability"
    assert parse_name("stats.compute_basic").head == "stat"


def test_a_date_with_dashes_is_one_date():
    tools = [
        _decl(
            "registry.get_person",
            {"full_name": TEXT, "birth_date": TEXT},
            ["full_name", "birth_date"],
        )
    ]
    result, first = step("get the registry person for Ana Souza with birth date 07-03-1985", tools)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"birth_date": "07-03-1985", "full_name": "Ana Souza"}


def test_a_possessive_name_is_the_name():
    tools = [_decl("concert.get_tickets", {"artist": TEXT}, ["artist"])]
    result, first = step("get Anitta's concert tickets", tools)
    assert result.outcome == "run", result.guidance.render
    assert dict(first.selection.arguments) == {"artist": "Anitta"}


@pytest.mark.parametrize(
    "turn, declarations, tool",
    [
        # a stem shared: "available" names availability
        (
            "check if the Copacabana hotel is available",
            [_decl("hotel.check_availability", {"hotel": TEXT}, ["hotel"])],
            "hotel.check_availability",
        ),
        # two words written as one, and a longer word a tool prefixes
        (
            "convert 3pm between the time zone of Recife and Lisbon",
            [
                _decl(
                    "timezone.convert", {"time": TEXT, "from_zone": TEXT, "to_zone": TEXT}, ["time"]
                )
            ],
            "timezone.convert",
        ),
        (
            "find the distance between Natal and Recife",
            [
                _decl(
                    "geodistance.find",
                    {"origin": TEXT, "destination": TEXT},
                    ["origin", "destination"],
                )
            ],
            "geodistance.find",
        ),
        # a noun its verb does not make with an ending
        (
            "analyze the sentiment of the review 'great service'",
            [_decl("sentiment_analysis", {"text": TEXT}, ["text"])],
            "sentiment_analysis",
        ),
        # a modifier only rivals a tool whose own qualifiers the turn does not name; a name is no modifier
        (
            "find a vegan soup recipe",
            [_decl("get_vegan_recipe", {"dish": TEXT})],
            "get_vegan_recipe",
        ),
        (
            "find the opening hours of the Pinacoteca Museum",
            [_decl("museum_info", {"museum": TEXT}, ["museum"])],
            "museum_info",
        ),
    ],
)
def test_tool_names_read_by_stem_compound_and_irregular_noun(turn, declarations, tool):
    result, first = step(turn, declarations)
    assert first.selection.tool == tool, result.guidance.render


def test_a_modifier_still_rivals_a_tool_whose_qualifiers_the_turn_does_not_name():
    tools = [_decl("get_boiling_point", {"substance": TEXT}, ["substance"])]
    result, first = step("get the freezing point of water", tools)
    assert first.selection.tool is None, result.guidance.render


def test_stems_must_share_seven_letters():
    tools = [_decl("get_general_report", {"topic": TEXT}, ["topic"])]
    result, first = step("generate a report", tools)
    assert first.selection.tool != "get_general_report" or result.outcome != "run"


def test_a_verb_noun_in_a_name_is_not_its_thing():
    assert parse_name("hotel_booking.book").head == "hotel"
    assert parse_name("recipe_finder.find").head == "recipe"


@pytest.mark.parametrize(
    "turn, language",
    [
        ("give me a recipe for feijoada", "en"),
        ("me dá uma receita de feijoada", "pt-BR"),
    ],
)
def test_give_me_reads_where_nothing_here_gives(turn, language):
    tools = [_decl("recipe_search", {"dish": TEXT}, ["dish"])]
    result, first = step(turn, tools, language, {"receita": "recipe"})
    assert first.selection.tool == "recipe_search", result.guidance.render


def test_a_grading_word_is_no_rival_modifier_but_a_direction_is():
    tools = [_decl("parks.find_nearby", {"city": TEXT}, ["city"])]
    result, first = step("find the nearest park in Curitiba", tools)
    assert first.selection.tool == "parks.find_nearby" and result.outcome == "run", (
        result.guidance.render
    )
    tools = [_decl("game_tracker.high_score", {"game": TEXT}, ["game"])]
    result, first = step("what is the lowest score in Tetris?", tools)
    assert first.selection.tool is None, result.guidance.render


def test_the_unit_after_a_number_is_not_a_name():
    tools = [_decl("music.generate_melody", {"key": TEXT, "tempo": NUM}, ["key", "tempo"])]
    result, first = step("generate a melody with tempo 90 BPM", tools)
    assert result.outcome == "ask" and first.selection.missing == ["key"], result.guidance.render


@pytest.mark.parametrize(
    "text, language, description, value",
    [
        ("March 17, 2025", "en", "The date, in YYYY-MM-DD.", "2025-03-17"),
        ("17 de março de 2025", "pt-BR", "Data no formato DD/MM/YYYY.", "17/03/2025"),
        ("2025-03-17", "en", "Date as MM-DD-YYYY.", "03-17-2025"),
        ("2025/03/17", "en", "The day of the trip.", "2025/03/17"),
        ("25/12/2025", "pt-BR", "The day, YYYY-MM-DD.", "2025-12-25"),
        ("03/04/2025", "en", "The day, YYYY-MM-DD.", None),  # March 4th or April 3rd: asked about
        (
            "03/04/2025",
            "en",
            "The day, MM-DD-YYYY.",
            "03-04-2025",
        ),  # the format orders them as English does
        ("03/04/2025", "en", "The day of the trip.", "03/04/2025"),  # no format named: as typed
        # a format named by its fields' names
        ("2025/03/17", "en", "The date (month-day-year) of the trip.", "03-17-2025"),
        ("17 de março de 2025", "pt-BR", "A data da viagem (dia/mês/ano).", "17/03/2025"),
        ("2025-03-17", "pt-BR", "A data, no formato ano-mês-dia.", "2025-03-17"),
        (
            "day-to-day",
            "en",
            "The day-to-day year of it.",
            "day-to-day",
        ),  # no three fields: no format
    ],
)
def test_a_date_as_the_description_asks_for_it(text, language, description, value):
    from server.router.dates import as_described, date_format

    assert as_described(text, language, date_format(description)) == value


def test_a_year_first_date_with_slashes_is_one_date():
    from server.router.tokens import tokenize

    assert [(t.text, t.kind) for t in tokenize("on 2025/03/17", "en")][1] == ("2025/03/17", "date")


def test_a_date_that_reads_two_ways_is_asked_for():
    tools = [
        _decl(
            "trip.book_train",
            {"city": TEXT, "date": {"type": "string", "description": "YYYY-MM-DD"}},
            ["city", "date"],
        )
    ]
    result, first = step("book a train trip in Campinas on 03/04/2026", tools)
    assert result.outcome == "ask" and first.selection.missing == ["date"], result.guidance.render
    result, first = step("book a train trip in Campinas on April 3, 2026", tools)
    assert result.outcome == "run" and first.selection.arguments["date"] == "2026-04-03", (
        result.guidance.render
    )


@pytest.mark.parametrize(
    "turn, language, outcome",
    [
        ("how much is 3 x 4?", "en", "run"),
        ("quanto é 3 x 4?", "pt-BR", "run"),
        (
            "calculate the area under y = x^2 from x = 1 to x = 4",
            "en",
            "unread",
        ),  # x names a variable here
    ],
)
def test_x_multiplies_only_between_two_numbers(turn, language, outcome):
    tools = [_decl("weather.get_forecast", {"city": TEXT}, ["city"])]
    result, first = step(turn, tools, language)
    assert result.outcome == outcome, result.guidance.render
    if outcome == "run":
        assert first.kind == "compute" and first.result == "12"


@pytest.mark.parametrize(
    "turn, language, tool",
    [
        ("what is the weight of ships in Santos?", "en", None),
        ("qual é o peso dos navios em Santos?", "pt-BR", None),
        ("qual o peso da carga em Santos?", "pt-BR", None),
        # the tool's own qualifier, before or in the "of" phrase; a name after "of" is a place, not whose
        ("what is the roof weight in Santos?", "en", "estimate_roof_weight"),
        ("what is the weight of the roof in Santos?", "en", "estimate_roof_weight"),
        ("what is the weight of Santos?", "en", "estimate_roof_weight"),
        ("qual é o peso do telhado em Santos?", "pt-BR", "estimate_roof_weight"),
    ],
)
def test_a_question_that_says_whose_thing_it_is_wants_the_tool_of_that(turn, language, tool):
    # a verbless question naming the thing of a tool's name, with an "of" phrase for whose it is, reads
    # that tool only where the tool's own qualifier is named; otherwise it is a question of knowledge
    tools = [_decl("estimate_roof_weight", {"city": TEXT}, ["city"])]
    result, first = step(
        turn,
        tools,
        language,
        {"peso": "weight", "telhado": "roof", "navio": "ship", "carga": "cargo"},
    )
    assert first.selection.tool == tool, result.guidance.render
    if tool is None:
        assert (result.outcome, first.kind, first.decided_by) == (
            "unread",
            "unread",
            "unread: no tool",
        )
    else:
        assert (result.outcome, first.decided_by) == ("run", "tool: admission")
        assert dict(first.selection.arguments) == {"city": "Santos"}


@pytest.mark.parametrize(
    "turn, language, date",
    [
        ("get the tide table for Santos on 2025/03/17", "en", "03-17-2025"),
        ("mostre a tábua de maré em Santos no dia 17 de março de 2025", "pt-BR", "03-17-2025"),
    ],
)
def test_a_date_in_the_format_its_description_names_in_words(turn, language, date):
    tools = [
        _decl(
            "tides.get_table",
            {
                "city": TEXT,
                "date": {
                    "type": "string",
                    "description": "The date (month-day-year) of the table.",
                },
            },
            ["city", "date"],
        )
    ]
    result, first = step(turn, tools, language, {"mare": "tide", "tabua": "table"})
    assert (result.outcome, first.decided_by, first.selection.tool) == (
        "run",
        "tool: admission",
        "tides.get_table",
    )
    assert dict(first.selection.arguments) == {"city": "Santos", "date": date}
