"""The lines on an answering worker's pipes: typed whole, refused whole when they are anything else,
and read by a real confined worker."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from server.answering import Note, ScopedRequest, Selection, Terms
from server.answering.calls import (
    CALLS,
    AnswerCall,
    ProbeCall,
    answer_line,
    probe_line,
    selection_line,
)
from server.answering.pool import AnswererPool, WorkerFailed

ANA = Terms(principal="ana", topics=("availability",), quotable=True)
NOTES = [Note(id="7", topic="availability", text="Ana is taking on new work from February.")]
ASK = ScopedRequest(question="Is Ana available for new work?", asker="x")


def test_an_answer_line_carries_the_contract_and_nothing_else() -> None:
    line = answer_line(ASK, ANA, NOTES)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one line, whatever the notes hold
    assert CALLS.validate_json(line) == AnswerCall(request=ASK, terms=ANA, notes=tuple(NOTES))
    assert set(json.loads(line)) == {"op", "request", "terms", "notes"}


@pytest.mark.parametrize(
    "change",
    [
        {"op": "shell"},  # no such call
        {"extra": True},  # a field the contract does not have
        {"terms": {"principal": "ana", "topics": [], "quotable": True, "reveal": ["private"]}},
        {"notes": [{"id": "7", "topic": "availability"}]},  # a note without its text
    ],
)
def test_a_line_that_is_not_a_call_is_refused_whole(change: dict[str, object]) -> None:
    call = {**json.loads(answer_line(ASK, ANA, NOTES)), **change}
    with pytest.raises(ValidationError):
        CALLS.validate_json(json.dumps(call))


def test_a_probe_line_and_a_selection_line_read_back() -> None:
    probe = ProbeCall(paths=("/etc",), connect=(80,))
    assert CALLS.validate_json(probe_line(["/etc"], [], [80])) == probe
    chosen = Selection(notes=("7",))
    assert Selection.model_validate(json.loads(selection_line(chosen))["selection"]) == chosen


def test_a_worker_answers_the_line_and_refuses_a_probe_its_pool_does_not_allow() -> None:
    pool = AnswererPool(size=1)
    try:
        assert pool.answer_sync(ASK, ANA, NOTES) == Selection(notes=("7",))
        with pytest.raises(WorkerFailed, match="unknown request"):
            pool.probe(["/etc/passwd"])
        assert pool.answer_sync(ASK, ANA, NOTES) == Selection(notes=("7",))  # a replacement answers
    finally:
        pool.close()
