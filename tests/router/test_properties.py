"""Property tests: determinism, no tool outside the catalogue, and past-tense questions never write."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.router import Catalogue, plan
from server.router import lexicon as lx
from tests.router.conftest import _data, catalogue, vocabulary

CATALOGUES = ("store", "calendar", "club")
WORDS = {
    "en": sorted(
        {f for forms in lx.EN_VERBS.values() for f in forms}
        | {
            "order",
            "event",
            "receipt",
            "inbox",
            "card",
            "profile",
            "mandate",
            "directory",
            "member",
            "notes",
            "the",
            "my",
            "to",
            "for",
            "and",
            "not",
            "?",
        }
    ),
    "pt-BR": sorted(
        {f for forms in lx.PT_VERBS.values() for f in forms}
        | {
            "pedido",
            "evento",
            "recibo",
            "caixa",
            "perfil",
            "mandato",
            "membros",
            "notas",
            "o",
            "a",
            "meu",
            "para",
            "do",
            "e",
            "não",
            "nao",
            "?",
            "você",
            "vc",
            "pode",
        }
    ),
}
EXTRA = st.sampled_from(
    [
        "4411",
        "40,00",
        "40.00",
        "12",
        "ana@example.com",
        "https://x.example",
        "@ana",
        '"Standup"',
        "amanhã",
        "tomorrow",
        "zork",
        "frobnicador",
        "ção",
        "ÇÃO",
        "  ",
        "!!",
        "ñ",
    ]
)


def turns(language: str):
    word = st.one_of(st.sampled_from(WORDS[language]), EXTRA, st.text(max_size=8))
    return st.lists(word, min_size=0, max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CATALOGUES), st.sampled_from(("en", "pt-BR")), st.data())
def test_same_turn_same_plan_byte_for_byte(name, language, data):
    turn = data.draw(turns(language))
    first = plan(turn, catalogue(name), language, vocabulary(name, language)).canonical_json()
    rebuilt = (
        Catalogue.from_declarations(list(reversed(_data()[name])))
        if name != "club"
        else catalogue(name)
    )
    second = plan(turn, rebuilt, language, vocabulary(name, language)).canonical_json()
    assert first == second


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CATALOGUES), st.sampled_from(("en", "pt-BR")), st.data())
def test_no_plan_names_a_tool_outside_its_catalogue(name, language, data):
    turn = data.draw(turns(language))
    subset_size = data.draw(st.integers(min_value=1, max_value=len(catalogue(name).tools)))
    tools = catalogue(name).tools[:subset_size]
    visible = Catalogue(tuple(tools))
    result = plan(turn, visible, language, vocabulary(name, language))
    names = {t.name for t in tools}
    for step in result.steps:
        assert step.selection.tool is None or step.selection.tool in names
        assert set(step.selection.choices) <= names
    hidden = [t for t in catalogue(name).tools[subset_size:]]
    for tool in hidden:
        # a hidden tool's name may be echoed only as the person's own word ("nothing here deals with 'plan'")
        assert (
            tool.display not in result.guidance.render
            or any(tool.display in t.display for t in tools)
            or tool.display in turn.lower()
        )


PAST_EN = [
    "did you {v} {n} {i}?",
    "was {n} {i} {p}?",
    "has {n} {i} been {p}?",
    "did anyone {v} the {n}?",
]
PAST_PT = [
    "você {pt} o {npt} {i}?",
    "o {npt} {i} foi {ppt}?",
    "vc ja {pt} o {npt} {i}?",
    "já {pt} o {npt}?",
]
WRITE_ACTIONS = sorted(a for a, kind in lx.ACTIONS.items() if kind != "read")


@st.composite
def past_questions(draw, language: str):
    action = draw(
        st.sampled_from([a for a in WRITE_ACTIONS if a in lx.EN_VERBS and a in lx.PT_VERBS])
    )
    i = draw(st.sampled_from(["4411", "12", ""]))
    if language == "en":
        forms = lx.EN_VERBS[action]
        base = next(f for f, t in forms.items() if t == "present")
        past = [f for f, t in forms.items() if t == "past"]
        template = draw(st.sampled_from(PAST_EN))
        return template.format(
            v=base,
            p=draw(st.sampled_from(past)),
            n=draw(st.sampled_from(["order", "event", "receipt", "card", "mandate", "notes"])),
            i=i,
        )
    forms = lx.PT_VERBS[action]
    preterite = [
        f
        for f, t in forms.items()
        if t == "past" and not f.endswith(("ado", "ada", "ido", "ida", "ados"))
    ]
    participle = [
        f for f, t in forms.items() if t == "past" and f.endswith(("ado", "ido"))
    ] or preterite
    template = draw(st.sampled_from(PAST_PT))
    return template.format(
        pt=draw(st.sampled_from(preterite or participle)),
        ppt=draw(st.sampled_from(participle)),
        npt=draw(st.sampled_from(["pedido", "evento", "recibo", "mandato"])),
        i=i,
    )


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CATALOGUES), st.sampled_from(("en", "pt-BR")), st.data())
def test_past_tense_questions_never_select_a_tool_that_writes(name, language, data):
    turn = data.draw(past_questions(language))
    result = plan(turn, catalogue(name), language, vocabulary(name, language))
    assert result.form.tense == "past", turn
    writers = {t.name for t in catalogue(name).tools if t.writes}
    for step in result.steps:
        if step.kind == "tool":
            assert step.selection.tool not in writers, (turn, step)
