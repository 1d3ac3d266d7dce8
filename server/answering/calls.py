"""The lines on an answering worker's pipes after its configuration, as typed models.

A call is one line of JSON the pool writes with pydantic in one pass (`answer_line`) and the
worker reads and checks whole with pydantic (`CALLS`), without an intermediate dict on either side.
It carries what the answerer is handed and nothing else: the scoped request, the verified mandate's
terms, the notes that mandate reveals to this asker. The worker's reply (`selection_line`) is
checked again on the trusted side, as the strict `Selection` (see `pool.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from server.answering.contract import Note, ScopedRequest, Selection, Terms


class _Call(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AnswerCall(_Call):
    """One question for the answerer."""

    op: Literal["answer"] = "answer"
    request: ScopedRequest
    terms: Terms
    notes: tuple[Note, ...]


class ProbeCall(_Call):
    """Tests and doctor only (a pool made with allow_probe): what a worker can open, list, reach."""

    op: Literal["probe"] = "probe"
    paths: tuple[str, ...] = ()
    listdirs: tuple[str, ...] = ()
    connect: tuple[int, ...] = ()


# What a worker accepts after its configuration: one of these a line, by its `op`.
CALLS: TypeAdapter[AnswerCall | ProbeCall] = TypeAdapter(
    Annotated[AnswerCall | ProbeCall, Field(discriminator="op")]
)


def answer_line(request: ScopedRequest, terms: Terms, notes: Sequence[Note]) -> bytes:
    call = AnswerCall(request=request, terms=terms, notes=tuple(notes))
    return call.model_dump_json().encode() + b"\n"


def probe_line(paths: Sequence[str], listdirs: Sequence[str], connect: Sequence[int]) -> bytes:
    call = ProbeCall(paths=tuple(paths), listdirs=tuple(listdirs), connect=tuple(connect))
    return call.model_dump_json().encode() + b"\n"


def selection_line(selection: Selection) -> bytes:
    """The worker's reply to an AnswerCall."""
    return b'{"selection":' + selection.model_dump_json().encode() + b"}\n"
