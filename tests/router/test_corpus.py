"""The corpus, field by field: outcome, every step (kind, rule, tool, arguments, sources), guidance and form."""

from __future__ import annotations

import shlex
from collections import Counter
from pathlib import Path

import pytest
import yaml

from server.router import plan
from server.router.reader import fold
from tests.router.conftest import catalogue, vocabulary

ENTRIES = yaml.safe_load((Path(__file__).resolve().parent / "corpus.yaml").read_text())


def cases():
    for number, entry in enumerate(ENTRIES):
        turns = entry["t"]
        languages = entry["l"] if isinstance(entry["l"], list) else [entry["l"]] * len(turns)
        for turn, language in zip(turns, languages, strict=False):
            yield pytest.param(entry, turn, language, id=f"{number}:{language}:{turn[:40]}")


CASES = list(cases())


def pairs(text: str) -> dict[str, str] | None:
    if text == "*":
        return None
    if text == "-":
        return {}
    return dict(part.split("=", 1) for part in text.split(";"))


def check_map(actual: dict, expected: dict | None, what: str) -> None:
    if expected is None:
        return
    assert set(actual) == set(expected), f"{what}: {actual} != {expected}"
    for key, value in expected.items():
        if value != "*":
            assert actual[key] == value, f"{what}[{key}]: {actual[key]!r} != {value!r}"


@pytest.mark.parametrize("entry, turn, language", CASES)
def test_corpus(entry, turn, language):
    result = plan(
        turn, catalogue(entry["c"]), language, vocabulary(entry["c"], language), entry.get("x")
    )
    assert result.outcome == entry["o"], result.model_dump()
    if "s" in entry:
        assert len(result.steps) == len(entry["s"]), [s.model_dump() for s in result.steps]
        for step, spec in zip(result.steps, entry["s"], strict=False):
            kind, rule, tool, args, sources = (part.strip() for part in spec.split("|"))
            assert step.kind == kind
            if rule.endswith("*"):
                assert step.decided_by.startswith(rule[:-1])
            else:
                assert step.decided_by == rule
            assert step.selection.tool == (None if tool == "-" else tool)
            check_map(step.selection.arguments, pairs(args), "arguments")
            check_map(step.selection.sources, pairs(sources), "sources")
    if "g" in entry:
        outcome, nxt = entry["g"].split()
        assert (result.guidance.outcome, result.guidance.next) == (outcome, nxt), result.guidance
    if "f" in entry:
        act, predicate, tense, polarity, frame = shlex.split(entry["f"])
        got = result.form
        for name, want, have in (
            ("act", act, got.act),
            ("predicate", predicate, got.predicate or "-"),
            ("tense", tense, got.tense),
            ("polarity", polarity, got.polarity),
            ("frame", frame, got.frame),
        ):
            if want != "*":
                assert have == want, f"form.{name}: {have!r} != {want!r}"
    if "r" in entry:
        have = {r.role: r.text for r in result.form.roles}
        if language == "pt-BR":  # variants typed without accents keep their own spelling
            have = {role: fold(text) for role, text in have.items()}
            entry_roles = {role: fold(str(text)) for role, text in entry["r"].items()}
        else:
            entry_roles = entry["r"]
        assert have == entry_roles
    if "render" in entry:
        assert result.guidance.render == entry["render"]
    if "choices" in entry:
        assert result.steps[0].selection.choices == entry["choices"]
    if "result" in entry:
        assert result.steps[0].result == entry["result"]
    if "handoff" in entry:
        assert result.guidance.handoff == entry["handoff"]
    if entry.get("declined"):
        assert (
            result.declined_because and len(result.steps) == 1 and result.guidance.handoff is None
        )
    assert result.vocabulary_digest == vocabulary(entry["c"], language).digest


def test_corpus_is_wide_enough():
    """At least 150 turns, half Portuguese, two catalogues or more, every outcome and form value."""
    assert len(CASES) >= 150
    languages = Counter(language for _, _, language in (c.values for c in CASES))
    assert languages["pt-BR"] * 2 >= len(CASES) - 10
    assert len({entry["c"] for entry in ENTRIES}) >= 2
    outcomes, acts, tenses, polarities, frames, roles = set(), set(), set(), set(), set(), set()
    for entry, turn, language in (c.values for c in CASES):
        result = plan(
            turn, catalogue(entry["c"]), language, vocabulary(entry["c"], language), entry.get("x")
        )
        outcomes.add(result.guidance.outcome)
        acts.add(result.form.act)
        tenses.add(result.form.tense)
        polarities.add(result.form.polarity)
        frames.add(result.form.frame)
        roles |= {r.role for r in result.form.roles}
    assert outcomes == {
        "resolved",
        "incomplete",
        "ambiguous",
        "unmet_object",
        "unmet_action",
        "unread",
    }
    assert acts == {"inform", "act", "change", "howto", "meaning", "give", "reply", "none"}
    assert tenses == {"present", "past", "future"} and polarities == {"affirmative", "negated"}
    assert frames == {"question", "howto", "ordering", "none"}
    assert roles == {"thing", "pointed", "qualifier", "destination", "quantity", "time"}
    accentless = [
        turn
        for entry, turn, language in (c.values for c in CASES)
        if language == "pt-BR" and turn.isascii()
    ]
    assert len(accentless) >= 20
    assert any(turn.startswith("vc ") for _, turn, _ in (c.values for c in CASES))
