"""The default answering agent: deterministic, it selects from the notes it was given.

It informs and nothing else. The question screen (`screen.classify`) reads requests, not words: a
request to commit the member (book, reserve, accept, sign, pay, hire, hold a date, name a price; in
English, Brazilian Portuguese or Spanish) escalates as a commitment, and a request to send data
somewhere, to call a tool or to set aside its instructions is refused. Every other question is matched
against the notes it was handed, which are the notes the mandate reveals to this asker, with the
questions the member confirmed each answers (`matching.match`): the note the matcher is sure of is
chosen; when it is sure of none, the question escalates with the plausible notes attached for the
principal. Whether a question is understood is decided by the notes, not by whether its words name
a mandated topic.
"""

from __future__ import annotations

from server.answering.contract import Note, ScopedRequest, Selection, Terms
from server.answering.matching import match
from server.answering.screen import classify

__all__ = ["answer", "classify", "screen"]


def screen(request: ScopedRequest) -> Selection | None:
    """What every answerer settles before looking at notes: refusals, and commitments to escalate."""
    refused, escalate = classify(request.question, request.language)
    if refused is not None:
        return Selection(refused=refused)
    if escalate is not None:
        return Selection(escalate=escalate)
    return None


def answer(request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
    """Choose, from the notes handed, the one that answers this scoped request; or escalate with the closest."""
    screened = screen(request)
    if screened is not None:
        return screened
    found = match(
        request.question,
        request.language,
        [(note.id, note.topic, note.text) for note in notes],
        names=(terms.principal,),
        examples={note.id: note.examples for note in notes if note.examples},
    )
    if found.chosen:
        return Selection(notes=found.chosen)
    return Selection(escalate="outside_mandate", candidates=found.candidates)
