"""What goes into an answering agent and what comes out: plain data, and nothing else.

The answering agent receives the scoped request, the verified mandate's terms and the briefing
notes that mandate lets it reveal to this asker. It holds no store handle, no tool registry and no
network; its output is checked after it returns.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


Escalation = Literal["outside_mandate", "commitment"]
Refusal = Literal["sends_data", "instructions", "tools"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Note(_Frozen):
    topic: str
    text: str


class Terms(_Frozen):
    """The mandate's terms the answerer works under (already verified by the caller)."""

    principal: str  # the answering principal's handle
    topics: tuple[str, ...]
    quotable: bool


class ScopedRequest(_Frozen):
    question: str
    asker: str
    language: Literal["en", "pt-BR"] = "en"


class Answer(_Frozen):
    """The answering agent's contract. It is silent: it never speaks to the asker's person."""

    answered: bool = Field(
        description="True only when the person already received an answer to scopedRequest from this agent "
        "directly. This agent is silent, so it is always false: deliver `findings` yourself."
    )
    scopedRequest: str = Field(description="The request this agent worked on, repeated for the orchestrator.")
    interactionSummary: str | None = Field(
        default=None, description="A summary of what this agent told the person directly; none, as it is silent."
    )
    findings: str | None = Field(
        default=None, description="The answer to scopedRequest, for you to deliver to your person. Respect `quotable`."
    )
    openQuestions: list[str] = Field(
        default_factory=list,
        description="Parts of the request left unanswered: escalated to the member in person, or refused. "
        "Do not guess them; the answer arrives later in `inbox` when the member decides.",
    )
    escalate: Escalation | None = Field(
        default=None, description="Why this request goes to the member's decision queue, if it does."
    )
    refused: Refusal | None = Field(
        default=None, description="Why this request was refused outright, if it was."
    )
