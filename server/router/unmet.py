"""The planner's steps for a clause no tool serves: a question of meaning, arithmetic computed
in place, a destination no tool takes (declined whole), a thing named with no tool that does what
the turn asks (unmet action), a verb with nothing it acts on (unmet object), or a turn not read at
all, which the host's settings say how to answer (rephrase, refuse, or hand off).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from server.router import lexicon as lx
from server.router.catalogue import Catalogue
from server.router.compute import arithmetic
from server.router.context import Context
from server.router.model import Handoff, Language, Next, Selection, Step
from server.router.model import Outcome as OutcomeKind
from server.router.reader import Clause, Reading, Token
from server.router.render import Renderer
from server.router.selection import reaching
from server.router.verbs import lemma_of


@dataclass
class Outcome:
    step: Step
    outcome: OutcomeKind
    next: Next
    render: str
    evidence: str = ""
    declined_because: str | None = None
    handoff: Handoff | None = None


class Unmet:
    """A mixin of the Planner: it reads the same catalogue, language, context and renderer."""

    catalogue: Catalogue
    language: Language
    context: Context
    say: Renderer

    def _no_tool(
        self,
        clause: Clause,
        reading: Reading,
        action: str | None,
        things: list[tuple[Token, str]],
        known: list[tuple[Token, str]],
        past_question: bool,
    ) -> Outcome:
        if reading.form.act == "meaning":
            step = Step(kind="unread", decided_by="unread: meaning")
            return Outcome(step, "unread", "Defer", self.say.meaning())
        if (
            reading.operators
            and sum(1 for t in clause.tokens if t.kind in ("number", "decimal")) >= 2
        ):
            if action is not None and lx.ACTIONS.get(action) != "read":
                return self._decline_compute()
            return self._compute(clause, reading)
        destination = [t for t in reading.destination if t in clause.tokens]
        if destination and action in lx.SEND_ACTIONS:
            return self._decline(destination)
        if past_question and known:
            step = Step(kind="unread", decided_by="unread: past tense")
            return Outcome(
                step, "unmet_action", "None", self.say.past_unmet(), evidence=known[0][0].text
            )
        if known:
            token, noun = known[0]
            actors = [t for t in self.catalogue.tools if noun in t.nouns] or [
                t for t in self.catalogue.tools if noun in t.param_nouns
            ]
            lemma = lemma_of(clause.verb, self.language) if clause.verb else None
            return Outcome(
                Step(kind="unread", decided_by="unread: no tool"),
                "unmet_action",
                "None",
                self.say.unmet_action(actors, token.text, lemma),
                evidence=token.text,
            )
        doers = list(reaching(self.catalogue, action))
        if doers and things:
            thing = next((t for t, _ in things), None)
            return Outcome(
                Step(kind="unread", decided_by="unread: no tool"),
                "unmet_object",
                "None",
                self.say.unmet_object(doers, thing.text if thing else ""),
                evidence=thing.text if thing else "",
            )
        return self._unread()

    def _unread(self) -> Outcome:
        if not self.context.rephrased:
            step = Step(kind="unread", decided_by="unread: no tool")
            return Outcome(step, "unread", "Rephrase", self.say.unread())
        setting = self.context.on_unread
        step = Step(kind="unread", decided_by=f"unread: on_unread {setting}")
        if setting == "refuse":
            return Outcome(step, "unread", "None", self.say.refuse())
        return Outcome(
            step, "unread", "Defer", self.say.handoff(setting), handoff=cast(Handoff, setting)
        )  # one of ON_UNREAD (Context.from_dict), not refuse

    def _decline(self, destination: list[Token]) -> Outcome:
        where = ", ".join(t.text for t in destination)
        step = Step(kind="decline", decided_by="decline: destination")
        because = self.say.declined_destination(where)
        return Outcome(
            step, "unmet_action", "None", because, evidence=where, declined_because=because
        )

    def _decline_compute(self) -> Outcome:
        step = Step(kind="decline", decided_by="decline: compute writes")
        because = self.say.declined_compute()
        return Outcome(step, "unmet_action", "None", because, declined_because=because)

    def _compute(self, clause: Clause, reading: Reading) -> Outcome:
        expression, result = arithmetic(clause.tokens, self.language)
        if result is None:
            return self._unread()
        step = Step(
            kind="compute",
            decided_by="compute: arithmetic",
            selection=Selection(
                arguments={"expression": expression}, sources={"expression": "turn"}
            ),
            result=result,
        )
        return Outcome(step, "resolved", "None", f"{expression} = {result}")
