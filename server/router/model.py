"""TurnPlan: what the router decided for a turn, as the seed names it, field by field."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

StepKind = Literal["tool", "ask", "compute", "unread", "decline"]
Outcome = Literal["resolved", "incomplete", "ambiguous", "unmet_object", "unmet_action", "unread"]
Next = Literal["Supply", "Choose", "Rephrase", "Defer", "None"]
Handoff = Literal["model", "ask", "answer"]
Language = Literal["en", "pt-BR"]
Act = Literal["inform", "act", "change", "howto", "meaning", "give", "reply", "none"]
RoleName = Literal["thing", "pointed", "qualifier", "destination", "quantity", "time"]
Polarity = Literal["affirmative", "negated"]
Tense = Literal["present", "past", "future"]
Frame = Literal["question", "howto", "ordering", "none"]
PlanOutcome = Literal["run", "ask", "unread", "decline"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Selection(_Frozen):
    tool: str | None = Field(default=None, description="The tool this step calls (or asks about).")
    arguments: dict[str, str] = Field(
        default_factory=dict, description="Each argument's value, as text."
    )
    sources: dict[str, str] = Field(
        default_factory=dict,
        description="Where each value came from: turn, answer, context, or step:N (an earlier step's result).",
    )
    choices: list[str] = Field(
        default_factory=list, description="For an ambiguous ask: the tools to choose from."
    )
    missing: list[str] = Field(
        default_factory=list, description="For an incomplete ask: the values still needed."
    )


class Step(_Frozen):
    kind: StepKind
    decided_by: str = Field(
        description="The rule that decided this step, e.g. 'tool: admission', 'ask: incomplete'."
    )
    selection: Selection = Field(default_factory=Selection)
    result: str | None = Field(default=None, description="For compute: the computed value.")


class Guidance(_Frozen):
    outcome: Outcome
    next: Next
    render: str = Field(description="A sentence to show the person, in the turn's language.")
    evidence: str = Field(default="", description="What in the turn led to this outcome.")
    handoff: Handoff | None = Field(
        default=None,
        description="Where on_unread sends a twice-unread turn; never set on a declined plan.",
    )


class Role(_Frozen):
    role: RoleName
    text: str


class FormModel(_Frozen):
    act: Act
    predicate: str | None
    roles: list[Role]
    polarity: Polarity
    tense: Tense
    frame: Frame


class TurnPlan(_Frozen):
    outcome: PlanOutcome
    language: Language
    steps: list[Step]
    guidance: Guidance
    declined_because: str | None = None
    form: FormModel
    vocabulary_digest: str

    def canonical_json(self) -> str:
        """Byte-for-byte the same for the same turn, catalogue and vocabulary."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
