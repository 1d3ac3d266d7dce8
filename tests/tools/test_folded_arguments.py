"""Rules see the value the tool will use: an argument the tool compares without regard to case,
spacing or Unicode form is folded by its type, once, before the rules run, and the tool receives that
very value. A deny-list rule therefore holds for every spelling of what it denies."""

from __future__ import annotations

import pytest

from server import tools
from server.chokepoint.rules import argument_types
from server.manifest.loading import load_manifest
from server.plaintext import folded
from tests.cli.test_cli import run
from tests.conftest import connect

SPECS = tools.load_all()
MANIFEST = load_manifest()
TEXT_ARGUMENTS = [
    (tool, argument)
    for tool in MANIFEST.tools
    for argument, kind in argument_types(SPECS[tool].input_schema()).items()
    if kind == "text"
]
# what a rule writer may expect to be the same word: case, spacing, and full-width/compatibility forms
VARIANTS = ("SALARY", "  Salary ", "Ｓａｌａｒｙ", "salary\u3000")


def _publish(club, tool: str, name: str, condition: str) -> None:
    env = {"PARLEY_DB": str(club.settings.db_path)}
    folder = club.settings.db_path.parent
    drafted = run(
        folder,
        *("rules", "draft", "--agent", "member", "--tool", tool, "--name", name),
        *("--when", condition),
        env=env,
    )
    run(
        folder, "rules", "publish", drafted.stdout.split("drafted store:")[1].split(":")[0], env=env
    )


# the arguments its tool compares without regard to case (a topic is stored lower-cased; a search
# matches in any case), each with what a deny-list rule on it denies and the call's other arguments
COMPARED_FOLDED = [
    ("update_briefing", "topic", "salary", {"text": "What I earn.", "visibility": "private"}),
    ("search_directory", "query", "ana", {}),
]


@pytest.mark.parametrize(("tool", "argument", "denied", "others"), COMPARED_FOLDED)
async def test_a_deny_list_rule_holds_for_every_spelling_of_what_it_denies(
    club, tool, argument, denied, others
):
    _publish(club, tool, f"Never {denied}", f"{argument} is not {denied}")
    spellings = (denied.upper(), f"  {denied.title()} ", f"{denied.title()}\u3000", _wide(denied))
    async with connect(club.url, club.tokens.member.token) as member:
        for spelling in spellings:
            called = await member.call_tool(tool, {**others, argument: spelling})
            assert called.is_error and f"Rule not met: {argument} is not {denied}" in (
                called.content[0].text
            ), spelling


async def test_the_tool_receives_the_value_the_rules_saw(club):
    async with connect(club.url, club.tokens.member.token) as member:
        written = await member.call_tool(
            "update_briefing",
            {"topic": "  Travel   PLANS ", "text": "Porto.", "visibility": "public"},
        )
    assert not written.is_error and written.structured_content["topic"] == "travel plans"


def _wide(text: str) -> str:
    """The full-width spelling (U+FF01…), which NFKC folds back to ASCII."""
    return "".join(chr(ord(c) - 0x21 + 0xFF01) if "!" <= c <= "~" else c for c in text.upper())


@pytest.mark.parametrize(("tool", "argument"), TEXT_ARGUMENTS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_text_argument_a_rule_can_name_is_normalised_once(tool, argument, variant):
    """What the rules read (the arguments as JSON, as the chokepoint hands them over) is exactly what the
    tool receives, and validating it again changes nothing: no later step of the tool can normalise it
    into something the rule did not see."""
    model = SPECS[tool].input_model
    field = model.model_fields[argument]
    try:
        validated = model.model_validate({**_required(model), argument: variant})
    except ValueError:
        return  # refused at the edge: it reaches neither a rule nor the tool
    seen_by_rules = validated.model_dump(mode="json")[argument]
    assert seen_by_rules == getattr(validated, argument)
    again = model.model_validate({**_required(model), argument: seen_by_rules})
    assert getattr(again, argument) == seen_by_rules
    if any(getattr(m, "func", None) is folded for m in field.metadata):
        assert seen_by_rules == "salary"


def _required(model) -> dict[str, object]:
    """A valid value for each required field (strings and literals), so one argument can vary."""
    values: dict[str, object] = {}
    for name, field in model.model_fields.items():
        if field.is_required():
            schema = model.model_json_schema()["properties"][name]
            values[name] = schema["enum"][0] if "enum" in schema else "sample-value"
    return values
