"""When the matcher is sure (`sureness`), and what a member's examples change (`taught`), piece by
piece; the corpus figures are in test_answer_rate.py and test_learning.py."""

from __future__ import annotations

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
