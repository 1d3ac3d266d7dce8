"""What goes into an answering agent and what comes out: plain data, and nothing else.

The answering agent receives the scoped request, the verified mandate's terms and the approved
briefing notes that mandate lets it reveal to this asker, each with an id. It holds no store handle,
no tool registry and no network. It returns a `Selection` — which notes answer, or why it will not
answer — and never text: the answer an asker reads is composed on the trusted side from the chosen
notes, verbatim (`server/answering/grounding.py`), so nothing an answerer writes can reach an asker.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Escalation = Literal["outside_mandate", "commitment"]
Refusal = Literal["sends_data", "instructions", "tools"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


MAX_EXAMPLES = 64  # questions a member confirmed a note answers, handed to the answerer per note


class Note(_Frozen):
    id: str  # the briefing note's id, as the answerer names it in its Selection
    topic: str
    text: str
    # Questions the principal confirmed this note answers (their own decisions in the queue, never an
    # agent's): labelled data in the member's vocabulary. Never quoted, never shown to an asker.
    examples: tuple[str, ...] = Field(default=(), max_length=MAX_EXAMPLES)


class Terms(_Frozen):
    """The mandate's terms the answerer works under (already verified by the caller)."""

    principal: str  # the answering principal's handle
    topics: tuple[str, ...]
    quotable: bool


class ScopedRequest(_Frozen):
    question: str
    asker: str
    language: Literal["en", "pt-BR"] = "en"


MAX_QUOTED = 3  # an answer quotes at most this many notes; an answerer that wants more is not sure


class Selection(_Frozen):
    """What an answerer returns: the notes that answer (by id, best first), or why it does not answer.

    Exactly one of `notes`, `escalate` or `refused`. `candidates` are notes the principal should see
    beside an escalated question (never shown to the asker)."""

    notes: tuple[str, ...] = Field(default=(), max_length=MAX_QUOTED)
    escalate: Escalation | None = None
    refused: Refusal | None = None
    candidates: tuple[str, ...] = Field(default=(), max_length=MAX_QUOTED)

    @model_validator(mode="after")
    def _one_outcome(self) -> Selection:
        if sum((bool(self.notes), self.escalate is not None, self.refused is not None)) != 1:
            raise ValueError(
                "a selection names notes, or escalates, or refuses: exactly one of them"
            )
        return self


class Quote(_Frozen):
    """One note an answer quotes, as data (the tools hand it on as `server.quoting.QuotedNote`)."""

    note_id: str
    quoted: str  # the note's exact text
    by: str  # the member whose note it is
    date: str  # YYYY-MM-DD, the day it was last changed


class Answer(_Frozen):
    """The answering agent's contract. It is silent: it never speaks to the asker's person."""

    answered: bool = Field(
        description="True only when the person already received an answer to scopedRequest from this agent "
        "directly. This agent is silent, so it is always false: deliver `findings` yourself."
    )
    scopedRequest: str = Field(
        description="The request this agent worked on, repeated for the orchestrator."
    )
    interactionSummary: str | None = Field(
        default=None,
        description="A summary of what this agent told the person directly; none, as it is silent.",
    )
    findings: str | None = Field(
        default=None,
        description="The answer to scopedRequest, for you to deliver to your person. Respect `quotable`.",
    )
    openQuestions: list[str] = Field(
        default_factory=list,
        description="Parts of the request left unanswered: escalated to the member in person, or refused. "
        "Do not guess them; the answer arrives later in `inbox` when the member decides.",
    )
    escalate: Escalation | None = Field(
        default=None,
        description="Why this request goes to the member's decision queue, if it does.",
    )
    refused: Refusal | None = Field(
        default=None, description="Why this request was refused outright, if it was."
    )
    quotes: tuple[Quote, ...] = Field(
        default=(),
        description="Each note `findings` quotes, as data: its id, its exact text under `quoted`, the "
        "member who wrote it under `by`, and its date.",
    )
