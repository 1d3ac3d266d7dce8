"""A run only with values the router is sure of: formats its descriptions ask, values the turn gives
that no parameter took, words that narrow the thing and that nothing carries; and catalogue builds
shared by content."""

from __future__ import annotations

import copy

import pytest

from server.router import Catalogue, plan
from server.router.formats import fits, shape, value_formats
from server.router.names import singular
from server.router.vocabulary import parse

EMPTY = parse({"language": "en"})

WEATHER = {
    "name": "Weather_1_GetWeather",
    "description": "Retrieves the weather conditions for a specified city and date.",
    "inputSchema": {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {
                "type": "string",
                "description": "The city, in the format 'City, State' or 'City, Country'. "
                "Examples: 'Austin, TX' or 'Lyon, FR'.",
            },
            "date": {
                "type": "string",
                "description": "The date of the forecast, in the format 'YYYY-MM-DD'.",
            },
        },
    },
}
SERVERS = {
    "name": "list_servers",
    "description": "Lists the servers, optionally of one type.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "type": {
                "type": "string",
                "enum": ["all", "graphql", "rds"],
                "description": "The type of server.",
            }
        },
    },
}
CONTACT = {
    "name": "get_contact_information",
    "description": "Retrieve the contact details of a person by name or identification number.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The full name."},
            "identification_number": {
                "type": "string",
                "description": "The identification number.",
            },
        },
    },
}


def first(turn: str, *declarations: dict):
    result = plan(turn, Catalogue.from_declarations(list(declarations)), "en", EMPTY)
    named = [s for s in result.steps if s.selection.tool]
    return result, named[0] if named else None


@pytest.mark.parametrize(
    "description, good, bad",
    [
        ("formatted as 'YYYY-MM-DD'", "2024-03-01", "today"),
        ("the alarm time in 'HH:MM' 24-hour format", "07:30", "7 in the morning"),
        (
            "as 'City, State', e.g. 'Austin, TX' or 'Lyon, FR'",
            "Berkeley, CA",
            "Berkeley, California",
        ),
        ("the date as DD-MM-YYYY", "04-11-2024", "2024-11-04"),
    ],
)
def test_a_described_format_is_kept(description, good, bad):
    formats = value_formats(description)
    assert formats and fits(good, formats) and not fits(bad, formats)


@pytest.mark.parametrize(
    "description",
    [
        "The city, such as 'Noida', 'Amritsar', or 'Indore'.",  # words alone: no format to keep
        "e.g. 'Austin, TX' or 'Lyon'",  # examples of two shapes say no one shape
        "The name of the person.",
    ],
)
def test_no_format_where_the_description_gives_none(description):
    assert value_formats(description) == ()


def test_shapes_read_words_codes_and_digits():
    assert shape("New York, NY") == shape("Lyon, FR") == "W,C"
    assert shape("New Delhi, India") == "W,W"
    assert shape("SK123") == "C9"


def test_a_relative_date_for_a_formatted_date_is_asked():
    result, step = first("what will the weather be in Austin, TX tomorrow?", WEATHER)
    assert result.outcome == "ask" and step is not None
    assert step.selection.arguments == {"city": "Austin, TX"} and "date" in step.selection.missing


def test_a_date_written_year_first_with_dots_is_converted():
    result, step = first("what will the weather be in Austin, TX on 2023.4.11?", WEATHER)
    assert result.outcome == "run" and step is not None
    assert step.selection.arguments == {"city": "Austin, TX", "date": "2023-04-11"}


def test_a_city_not_written_as_the_examples_is_asked():
    result, step = first("what is the weather in New Delhi, India on 2024-01-02?", WEATHER)
    assert result.outcome == "ask" and step is not None and "city" in step.selection.missing


def test_a_word_that_narrows_the_thing_is_not_dropped():
    result, step = first("list all openai servers", SERVERS)
    assert result.outcome == "ask" and step is not None and step.selection.missing == ["type"]
    result, step = first("list all servers", SERVERS)
    assert (
        result.outcome == "run" and step is not None and step.selection.arguments == {"type": "all"}
    )


def test_a_value_no_parameter_took_is_asked_about():
    result, step = first("find the contact information for 'J. Smith' or 'John Smith'", CONTACT)
    assert result.outcome == "ask" and step is not None and "name" in step.selection.missing


def test_an_abbreviated_number_names_an_identifier():
    short = {
        **CONTACT,
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "id_no": {"type": "string"}},
        },
    }
    result, step = first("find the contact information for the employee 123", short)
    assert (
        result.outcome == "run"
        and step is not None
        and step.selection.arguments == {"id_no": "123"}
    )


def test_a_catalogue_is_built_once_per_content():
    once = Catalogue.from_declarations([WEATHER, SERVERS])
    again = Catalogue.from_declarations(copy.deepcopy([WEATHER, SERVERS]))
    assert again is once
    changed = copy.deepcopy(WEATHER)
    changed["inputSchema"]["properties"]["city"]["description"] = "The city."
    other = Catalogue.from_declarations([changed, SERVERS])
    weather = next(t for t in other.tools if t.name == "Weather_1_GetWeather")
    assert other is not once and weather.param("city").formats == ()


MOVIES = {
    "name": "Movies_3_FindMovies",
    "description": "Search for movies by genre and cast.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "genre": {"type": "string", "enum": ["Drama", "Comedy"], "description": "The genre."}
        },
    },
}
PROJECTS = [
    {
        "name": "project_api.ProjectApi.get_projects_by_tag",
        "description": "Projects with a tag.",
        "inputSchema": {
            "type": "object",
            "required": ["tag"],
            "properties": {"tag": {"type": "string"}},
        },
    },
    {
        "name": "project_api.ProjectApi.get_children_projects_by_tag",
        "description": "Child projects with a tag.",
        "inputSchema": {
            "type": "object",
            "required": ["tag", "uuid"],
            "properties": {"tag": {"type": "string"}, "uuid": {"type": "string"}},
        },
    },
]


def test_a_plural_in_ies_names_the_tool_its_singular_names():
    result, step = first("find a comedy movie", MOVIES)
    assert (
        result.outcome == "run"
        and step is not None
        and step.selection.arguments == {"genre": "Comedy"}
    )


def test_an_irregular_plural_names_its_singular():
    result, step = first(
        "retrieve the child projects with the tag 'env' for the parent with UUID 'a-1'", *PROJECTS
    )
    assert (
        step is not None
        and step.selection.tool == "project_api.ProjectApi.get_children_projects_by_tag"
    )


def test_a_verb_alone_does_not_reach_a_tool_of_another_action():
    professional = {
        "name": "getDataForProfessional",
        "description": "Professionals by criteria.",
        "inputSchema": {"type": "object", "properties": {"province_id": {"type": "integer"}}},
    }
    result, step = first("looking for someone", professional)
    assert step is None and result.outcome == "unread"


TRAINS = {
    "name": "Trains_1_FindTrains",
    "description": "Find trains to a destination city on a date.",
    "inputSchema": {
        "type": "object",
        "required": ["to", "date_of_journey"],
        "properties": {
            "to": {"type": "string", "description": "The destination city."},
            "date_of_journey": {
                "type": "string",
                "description": "The date of the journey, in the format 'YYYY-MM-DD'.",
            },
            "number_of_adults": {"type": "integer", "description": "The number of adults."},
        },
    },
}
HOTELS = {
    "name": "Hotels_4_SearchHotel",
    "description": "Search for hotels in a location.",
    "inputSchema": {
        "type": "object",
        "required": ["location", "number_of_rooms"],
        "properties": {
            "location": {"type": "string", "description": "The city."},
            "number_of_rooms": {
                "type": "integer",
                "description": "The number of rooms to reserve.",
            },
        },
    },
}


@pytest.mark.parametrize(
    "turn",
    [
        "find me a train for the 9th of March to Boston",
        "find me a train to Boston on March 9th",
        "find me a train to Boston on the 2023 1st of March",
    ],
)
def test_a_day_beside_a_month_is_no_count(turn):
    result, step = first(turn, TRAINS)
    assert result.outcome == "ask" and step is not None
    assert (
        "number_of_adults" not in step.selection.arguments
        and "date_of_journey" in step.selection.missing
    )


def test_a_number_that_grades_the_thing_is_no_count():
    result, step = first("can you locate a 4 star hotel in Boston", HOTELS)
    assert step is not None and "number_of_rooms" not in step.selection.arguments
    result, step = first("can you locate a hotel in Boston with 2 rooms", HOTELS)
    assert step is not None and step.selection.arguments.get("number_of_rooms") == "2"


THERAPISTS = {
    "name": "Services_4_FindProvider",
    "description": "Discover therapists in a specified city based on the user's preferences.",
    "inputSchema": {
        "type": "object",
        "required": ["city"],
        "properties": {"city": {"type": "string", "description": "The city, e.g. 'Berkeley, CA'."}},
    },
}
SONGS = {
    "name": "Music_3_LookupMusic",
    "description": "Retrieves a list of songs that match the user's preferences.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "genre": {"type": "string", "description": "The genre, e.g. 'Pop'."},
            "year": {"type": "integer", "description": "The year the song was released."},
        },
    },
}


@pytest.mark.parametrize(
    "description, purpose",
    [
        ("Search for a hair stylist by city and optionally filter", "stylist"),
        ("Retrieves a list of songs that match the user's preferences.", "song"),
        ("Finds and lists cultural events, such as concerts", "event"),
        ("This function retrieves the current weather for a city.", "weather"),
        ("Explore and discover movies online based on preferences", singular("movie")),
        ("Data for the current user.", None),  # no verb first: no purpose read
    ],
)
def test_a_description_says_what_its_tool_acts_on(description, purpose):
    from server.router.descriptions import purpose_of as _purpose

    assert _purpose(description) == purpose


def test_a_tool_is_reached_by_what_its_description_says_it_acts_on():
    result, step = first("could you find me a therapist in Berkeley, CA?", THERAPISTS, SONGS)
    assert (
        step is not None
        and step.selection.tool == "Services_4_FindProvider"
        and step.decided_by == "tool: purpose"
    )
    assert result.outcome == "run" and step.selection.arguments == {"city": "Berkeley, CA"}
    result, step = first("could you find me a plumber in Berkeley, CA?", THERAPISTS, SONGS)
    assert step is None  # nothing here acts on plumbers


def test_a_year_without_its_century_is_asked():
    result, step = first("find me some Pop songs from '19", SONGS)
    assert result.outcome == "ask" and step is not None and step.selection.missing == ["year"]
    result, step = first("find me some Pop songs from 2019", SONGS)
    assert (
        result.outcome == "run"
        and step is not None
        and step.selection.arguments == {"genre": "Pop", "year": "2019"}
    )


EVENTS = {
    "name": "Events_3_FindEvents",
    "description": "Finds cultural events in a city on a date.",
    "inputSchema": {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. 'Austin, TX' or 'Lyon, FR'."},
            "date": {"type": "string", "description": "The date, formatted as 'YYYY-MM-DD'."},
        },
    },
}
STATS = {
    "name": "game_stats.fetch_player_statistics",
    "description": "Fetch a player's statistics for a game on a platform.",
    "inputSchema": {
        "type": "object",
        "required": ["game", "username"],
        "properties": {
            "game": {"type": "string", "description": "The game."},
            "username": {"type": "string", "description": "The player's username."},
            "platform": {"type": "string", "description": "The platform."},
        },
    },
}
RIDES = {
    "name": "RideSharing_2_GetRide",
    "description": "Book a cab ride to a destination.",
    "inputSchema": {
        "type": "object",
        "required": ["destination", "number_of_seats"],
        "properties": {
            "destination": {"type": "string", "description": "The address."},
            "number_of_seats": {"type": "integer", "description": "The number of seats."},
        },
    },
}


def test_a_date_and_a_day_said_otherwise_give_no_sure_date():
    result, step = first(
        "any events in Austin, TX this Sunday? Today is Friday 2023-09-29.", EVENTS
    )
    assert result.outcome == "ask" and step is not None and "date" in step.selection.missing
    result, step = first("any events in Austin, TX on 2023-10-01?", EVENTS)
    assert (
        result.outcome == "run"
        and step is not None
        and step.selection.arguments["date"] == "2023-10-01"
    )


def test_a_quote_left_over_takes_back_an_unquoted_guess():
    result, step = first("fetch player statistics of 'Zelda' on Switch for user 'Sam'", STATS)
    assert result.outcome == "ask" and step is not None
    assert step.selection.arguments.get("game") != "Switch" and "game" in step.selection.missing


def test_a_number_inside_a_name_is_no_count():
    result, step = first("I would like to get a ride to 540 El Camino Real", RIDES)
    assert step is not None and "number_of_seats" not in step.selection.arguments


RESORTS = {
    "name": "Resorts_2_SearchResort",
    "description": "Search for resorts in a city.",
    "inputSchema": {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "description": "The city where the resort is."},
            "rooms": {"type": "integer", "description": "How many resort rooms to hold."},
            "grade": {
                "type": "string",
                "description": "The resort's grade in stars.",
                "enum": ["3", "4", "5"],
            },
        },
    },
}


def test_a_word_several_descriptions_share_says_no_parameter():
    # "resort" is in every description: "a 4 star resort" names no count of rooms
    result, step = first("find a 4 star resort in Lisbon", RESORTS)
    assert step is not None and "rooms" not in step.selection.arguments, result.guidance.render
