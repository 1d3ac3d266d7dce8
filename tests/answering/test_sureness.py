"""When the matcher is sure (`sureness`), and what a member's examples change (`taught`), piece by
piece; the corpus figures are in test_answer_rate.py and test_learning.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.answering import deterministic, kinds
from server.answering.contract import Note, ScopedRequest, Terms
from server.answering.matching import assessed, match
from tests.answering.corpora import corpus

JOANA = corpus("joana")
NOTES = JOANA.notes
NAMES = ("joana", "Joana")


def test_a_question_naming_a_kind_the_note_does_not_hold_is_not_answered_from_it() -> None:
    """ "what year" is answered by a year: her note on cycling names a month ("last November"), her
    note on her birth a year."""
    assert kinds.narrow("what year did she start cycling?") == "year"
    assert kinds.narrow("em que mês ela tira férias?") == "month"
    assert kinds.narrow("where does she live?") is None
    assert not kinds.holds_narrow("year", "last November I rode to Gramado over three days")
    assert kinds.holds_narrow("year", "I was born in Pelotas in 1987.")
    found = assessed("what year did she start cycling?", NOTES, NAMES)
    assert found.best == "j12" and found.evidence.kind_missing
    assert match("what year did she start cycling?", "en", NOTES, NAMES).chosen == ()


def test_the_members_own_name_is_never_a_questions_subject() -> None:
    """Her Instagram handle holds her name: read as a subject, it drew every question that names
    her to that note."""
    assert assessed("How old is Joana?", NOTES).best == "j28"  # her name taken for a subject
    assert assessed("How old is Joana?", NOTES, NAMES).best != "j28"


def test_an_escalation_lists_only_notes_close_to_the_question() -> None:
    """Issue #43: a question far from every note escalates with no candidate."""
    far = match("What is the capital of Mongolia?", "en", NOTES, NAMES)
    assert far.chosen == () and far.candidates == ()
    near = match("a clínica tem estacionamento?", "pt-BR", NOTES, NAMES)
    assert near.chosen == () and "j02" in near.candidates


def test_a_question_the_member_confirmed_is_answered_from_its_note_once_taught() -> None:
    asked = "does she drive to work?"
    assert match(asked, "en", NOTES, NAMES).chosen == ()
    taught = {"j23": ("does she drive to work?",), "j12": ("how does she commute?",)}
    assert match(asked, "en", NOTES, NAMES, taught).chosen == ("j23",)


def test_a_question_the_member_settled_asked_again_in_its_words_is_answered_from_its_note() -> None:
    """The member pointed at j01 for "Can Joana look at my bearded dragon?": the same question,
    asked again by anyone in the same words (case, accents, punctuation aside), is that note, whatever
    the rankers say; they alone still abstain on it, and on a question in other words."""
    asked = "Can Joana look at my bearded dragon?"
    taught = {"j01": (asked,)}
    assert assessed(asked, NOTES, NAMES, taught).sure() is None  # the rankers alone: not sure
    assert match(asked, "en", NOTES, NAMES).chosen == ()
    for again in (
        asked,
        "can joana look at my BEARDED dragon",
        "Cán Joana look at my bearded-dragon??",
    ):
        assert match(again, "en", NOTES, NAMES, taught).chosen == ("j01",)
    assert match("Can Joana look at my dragon?", "en", NOTES, NAMES, taught).chosen == ()
    # a question the member gave two notes is theirs to settle again
    both = {"j01": (asked,), "j02": (asked,)}
    assert match(asked, "en", NOTES, NAMES, both).chosen == ()
    # an example of a note the asker may not see settles nothing
    handed = [note for note in NOTES if note[0] != "j01"]
    assert "j01" not in match(asked, "en", handed, NAMES, taught).chosen


def test_an_example_of_a_note_not_handed_never_brings_that_note() -> None:
    """Examples travel inside the notes handed (`Note.examples`); an example keyed by a note the
    asker may not see is never a way to it."""
    handed = [note for note in NOTES if note[0] != "j23"]
    taught = {"j23": ("does she drive to work?",)}
    found = match("does she drive to work?", "en", handed, NAMES, taught)
    assert "j23" not in found.chosen + found.candidates
    notes = [
        Note(id=i, topic=t, text=x, examples=("does she drive to work?",) if i == "j23" else ())
        for i, t, x in NOTES
    ]
    terms = Terms(principal="joana", topics=tuple({t for _, t, _ in NOTES}), quotable=True)
    request = ScopedRequest(question="does she drive to work?", asker="x")
    assert deterministic.answer(request, terms, notes).notes == ("j23",)
    hidden = [note for note in notes if note.id != "j23"]
    selection = deterministic.answer(request, terms, hidden)
    assert "j23" not in selection.notes + selection.candidates


DANIEL = corpus("daniel")


def test_a_question_asking_a_price_is_not_answered_from_a_note_that_names_none() -> None:
    """ "how much does he charge for a podcast episode?" and his note on podcasts (no amount): the
    words and the encoder agreed on it before the price kind; his note on his rates names one."""
    assert kinds.narrow("how much does he charge for a podcast episode?") == "price"
    assert kinds.narrow("qual o preço da masterização?") == "price"
    assert kinds.narrow("how many shows does he edit?") is None
    assert not kinds.holds_narrow(
        "price", "I edit four weekly podcasts; an episode comes back within 48 hours."
    )
    assert kinds.holds_narrow(
        "price", "Cobro R$ 900 por faixa mixada e R$ 250 por faixa masterizada."
    )
    names = ("daniel", "Daniel")
    found = match("how much does he charge for a podcast episode?", "en", DANIEL.notes, names)
    assert found.chosen == ()


def test_owning_is_a_questions_subject_not_a_function_word() -> None:
    """ "which mics does he own?" shares its setting with "I don't rent out my studio or my
    microphones", not its point: with "own" dropped as a function word, the note spoke to all of it."""
    found = assessed("which mics does he own?", DANIEL.notes, ("daniel", "Daniel"))
    assert found.evidence.coverage < 1.0
    assert match("which mics does he own?", "en", DANIEL.notes, ("daniel", "Daniel")).chosen == ()


def test_the_encoders_nearest_standing_apart_is_quoted_only_on_the_apart_route() -> None:
    """The route as such, under gates that open it (z 4.5, gap 0.75: the five-corpus fit of round
    r46); the six-corpus fit of round h46 closes it (`sureness.GATES`)."""
    from dataclasses import replace

    from server.answering import sureness

    gates = replace(sureness.GATES, apart_z=4.5, apart_gap=0.75)
    base = sureness.Evidence(
        agreed=False, score=0.1, margin=0.0, coverage=0.2, rare=0.2, z=0.5,
        kind_missing=False, open=True, nearest_z=5.0, nearest_gap=2.0, nearest_rare=0.0,
        nearest_kind_missing=False,
    )  # fmt: skip
    assert not sureness.decide(base, gates) and sureness.apart(base, gates)
    assert not sureness.apart(base.__class__(**{**base.__dict__, "nearest_z": 3.0}), gates)
    assert not sureness.apart(base.__class__(**{**base.__dict__, "nearest_gap": 0.1}), gates)
    assert not sureness.apart(
        base.__class__(**{**base.__dict__, "nearest_kind_missing": True}), gates
    )
    closed = base.__class__(**{**base.__dict__, "open": False})
    assert not sureness.apart(closed, gates)  # a yes-or-no question needs the note's words too


def test_a_members_confirmed_example_calibrates_what_is_sure_for_that_note() -> None:
    """ "does Daniel collect records?" escalated though his note on his records ranked first; he
    confirmed it. A later question the words and the encoder give that note with evidence as strong
    on every count is answered from it; the gates alone still abstain."""
    from server.answering import sureness

    names = ("daniel", "Daniel")
    asked = "what kind of music is in his vinyl collection?"
    taught = {"d20": ("does Daniel collect records?",)}
    assert match(asked, "en", DANIEL.notes, names).chosen == ()
    found = assessed(asked, DANIEL.notes, names, taught)
    assert not sureness.decide(found.evidence) and found.calibrated
    assert match(asked, "en", DANIEL.notes, names, taught).chosen == ("d20",)
    # an example of a note the asker may not see never calibrates anything
    handed = [note for note in DANIEL.notes if note[0] != "d20"]
    assert "d20" not in match(asked, "en", handed, names, taught).chosen
    # nor does one whose untaught question ranked another note first
    assert match(asked, "en", DANIEL.notes, names, {"d20": ("is he into music?",)}).chosen == ()


def test_an_examples_meaning_and_its_words_are_one_opinion_not_two() -> None:
    """Tomás confirmed "o Tomás dá aula de marcenaria?" for his note on his course. "o Tomás dá aula de
    violão?" (no note answers it) is near that example in meaning, and the example's own words rank
    the course note first; the encoder's nearest note is another and the note's own words rank it
    first neither: one example is not the two rankers agreeing, and nothing is quoted."""
    tomas = corpus("tomas")
    names = ("tomas", "Tomás")
    asked = "o Tomás dá aula de violão?"
    taught = {"t10": ("o Tomás dá aula de marcenaria?",)}
    found = assessed(asked, tomas.notes, names, taught)
    assert found.best == "t10" and found.nearest != "t10"
    assert not found.evidence.agreed
    assert not match(asked, "pt", tomas.notes, names, taught).chosen


def test_an_examples_words_count_as_themselves_never_as_the_subjects_they_might_name() -> None:
    """A note's own word names its subject ("casa" is a workplace); the same stem in a confirmed example
    ("ela é casada?": married) names nothing: the example is evidence for its own words only."""
    from server.answering.word_ranking import EXAMPLES_BELOW, _index

    own = _index((("n1", "home", "Trabalho em casa."), ("n2", "bees", "Crio abelhas.")))
    taught = _index((("n1", "bees", "Crio abelhas." + EXAMPLES_BELOW + "ela é casada?"),))
    assert "#workplace" in own.idf
    assert "#workplace" not in taught.idf
    assert any(term in taught.idf for term in ("cas", "casad"))  # its own words still count


def test_both_rankers_clearly_first_is_sure_though_the_words_speak_to_little() -> None:
    """The clear route as such, under gates that open it (clear_gap 1.0: the six-corpus fit of round
    h46): the words' best note is the encoder's nearest, first on the words by `clear_margin` and
    first for the encoder by `clear_gap` in z. The nine-corpus fit of round c46 closes it
    (`sureness.GATES`): bento's "conserto também tem garantia?" was answered through it."""
    from server.answering import sureness

    gates = replace(sureness.GATES, clear_gap=1.0)
    base = sureness.Evidence(
        agreed=True, score=0.4, margin=gates.clear_margin, coverage=0.25, rare=0.2, z=2.5,
        kind_missing=False, open=True, lead=gates.clear_gap,
    )  # fmt: skip
    assert sureness.decide(base, gates)
    assert not sureness.decide(base)  # closed as shipped
    assert not sureness.decide(replace(base, margin=gates.clear_margin - 0.01), gates)
    assert not sureness.decide(replace(base, lead=gates.clear_gap - 0.01), gates)
    assert not sureness.decide(replace(base, agreed=False), gates)
    assert not sureness.decide(replace(base, kind_missing=True), gates)
    assert not sureness.decide(replace(base, open=False), gates)  # a yes-or-no question
    # the words' lead read without the examples' words is the one the route asks for
    assert not sureness.decide(replace(base, own_margin=0.0), gates)


def test_an_examples_words_give_no_clear_lead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ravi confirmed "What time zone is Ravi in?" for his note on where he lives. "qual o time de
    futebol do ravi?" (no note answers it) meets that example's "time"; the note's own words do not
    lead, so the clear route, open as round h46 fitted it, does not answer it."""
    from server.answering import sureness

    opened = replace(sureness.GATES, clear_gap=1.0)
    monkeypatch.setattr(sureness, "GATES", opened)  # the matcher asks for the own lead under these
    ravi = corpus("ravi")
    names = ("ravi", "Ravi")
    asked = "qual o time de futebol do ravi?"
    taught = {"r06": ("What time zone is Ravi in?",)}
    found = assessed(asked, ravi.notes, names, taught)
    assert found.best == found.nearest == "r06" and found.evidence.own_margin is not None
    assert not sureness.decide(found.evidence, opened)
    assert sureness.decide(replace(found.evidence, own_margin=None), opened)  # the example's lead
    assert match(asked, "pt-BR", ravi.notes, names, taught).chosen == ()


def test_a_question_asking_where_to_find_or_reach_someone_needs_a_note_holding_it() -> None:
    """Marisa's "what's the address of Espaço Maré?" and her note saying her classes are at Espaço
    Maré, in Rio Vermelho (round c46: both rankers put it clearly first): an address, a telephone
    number or an e-mail address is a value of its own form, and a note without one does not answer."""
    assert kinds.narrow("what's the address of Espaço Maré?") == "address"
    assert kinds.narrow("qual o endereço do ateliê?") == "address"
    assert kinds.narrow("qual o número do whatsapp dela?") == "phone"
    assert kinds.narrow("what's her email?") == "email"
    assert kinds.narrow("does she answer emails on weekends?") is None
    assert kinds.holds_narrow("address", "Atendo na Rua Augusta, 1200, em São Paulo.")
    assert kinds.holds_narrow("address", "The shop is at 12 Baker Street.")
    assert not kinds.holds_narrow("address", "Moro na rua de trás da praça, com 3 cachorros.")
    assert kinds.holds_narrow("phone", "Call me on +55 48 99123-4567.")
    assert kinds.holds_narrow("email", "Write to ana@studio.com.br.")
    marisa = corpus("marisa")
    found = assessed("what's the address of Espaço Maré?", marisa.notes, ("marisa", "Marisa"))
    assert found.best == "ma02" and found.evidence.kind_missing
    assert match("what's the address of Espaço Maré?", "en", marisa.notes, ("marisa",)).chosen == ()
