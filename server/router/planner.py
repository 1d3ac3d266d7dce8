"""The deterministic planner: a read turn becomes a plan of steps, each naming the rule that decided it.

No model is called and nothing leaves the process. The same turn, catalogue and vocabulary give
the same plan, byte for byte. A missing value is asked for, never guessed; two tools that serve
equally are asked about; a past-tense question never writes; a turn that would send data where no
tool takes it is declined whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from server.router import lexicon as lx
from server.router.binding import Binder
from server.router.catalogue import Catalogue, CatalogueTool, takes
from server.router.certainty_tool import tool_unsure
from server.router.choosing import ClauseFacts, ToolChooser
from server.router.context import Awaiting, Context
from server.router.model import (
    Language,
    PlanOutcome,
    Selection,
    Step,
    TurnPlan,
)
from server.router.reader import LANGUAGES, Clause, Reading, Token, read
from server.router.render import Renderer
from server.router.selection import (
    clause_span,
    things,
)
from server.router.statements import described
from server.router.unmet import Outcome, Unmet
from server.router.vocabulary import Vocabulary

_STATEMENT = "unread: statement"


class Planner(Unmet):
    def __init__(
        self, catalogue: Catalogue, language: Language, vocabulary: Vocabulary, context: Context
    ):
        self.catalogue = catalogue
        self.language = language
        self.vocabulary = vocabulary
        self.context = context
        self.say = Renderer(language, catalogue)
        self.chooser = ToolChooser(catalogue, language, vocabulary, context)

    # --- one clause ------------------------------------------------------------------------

    def clause(self, clause: Clause, reading: Reading, done: list[Step]) -> Outcome:
        """One clause's step: which tool it reaches, then what that tool needs from the turn."""
        if reading.definition:
            # "what is a mandate?": asks what such a thing is, which no tool's call answers
            step = Step(kind="unread", decided_by="unread: meaning")
            return Outcome(step, "unread", "Defer", self.say.meaning())
        if reading.form.frame == "none" and described(clause, self.language):
            step = Step(kind="unread", decided_by=_STATEMENT)
            return Outcome(step, "unread", "Rephrase", self.say.unread())
        choice = self.chooser.choose(clause, reading)
        facts, chosen = choice.facts, choice.tools
        several = self._several(facts, chosen)
        if several is not None:
            return several
        if not chosen:
            return self._no_tool(
                clause, reading, facts.action, facts.found, choice.known, facts.past_question
            )
        return self._with_tool(chosen[0], facts, choice.rule, choice.through_value, done)

    def _several(self, facts: ClauseFacts, chosen: list[CatalogueTool]) -> Outcome | None:
        """Two or more tools still chosen: unsure among them, or a choice asked of the caller."""
        if len(chosen) > 1 and all(
            tool_unsure(
                t, facts.clause.tokens, facts.found, facts.action, facts.span, self.language
            )
            for t in chosen
        ):
            # a tie among tools the turn names only the kind of ("I would like a ferry"), giving none
            # of the values any of them reads: offering a choice would be a guess that one is meant
            step = Step(kind="unread", decided_by="unread: tool unsure")
            return Outcome(step, "unmet_object", "Rephrase", self.say.unsure_among(chosen))
        if len(chosen) > 1:
            names = sorted(t.name for t in chosen)
            step = Step(kind="ask", decided_by="ask: ambiguous", selection=Selection(choices=names))
            return Outcome(
                step,
                "ambiguous",
                "Choose",
                self.say.ambiguous(chosen),
                evidence=facts.reading.form.predicate or "",
            )
        return None

    def _with_tool(
        self,
        tool: CatalogueTool,
        facts: ClauseFacts,
        rule: str | None,
        through_value: bool,
        done: list[Step],
    ) -> Outcome:
        """The one tool chosen: declined, or its arguments bound and what is missing asked for."""
        clause, reading, action, found = facts.clause, facts.reading, facts.action, facts.found
        form = reading.form
        refused = self._refused(tool, facts)
        if refused is not None:
            return refused
        arguments, sources, unsure, unplaced = self._arguments(tool, clause, reading, done, found)
        from_turn = "turn" in sources.values()
        if (
            action is None
            and form.frame == "question"
            and any(p.required for p in tool.params)
            and not from_turn
        ):
            # "what is the penalty for burglary?": a question about the thing, with none of the values
            # the tool reads it by, is a question of knowledge, not a call
            step = Step(kind="unread", decided_by="unread: question of knowledge")
            return Outcome(step, "unmet_object", "Rephrase", self.say.unread())
        missing = [
            p.name
            for p in tool.params
            if (p.required or p.name in unsure) and p.name not in arguments
        ]
        selection = Selection(tool=tool.name, arguments=arguments, sources=sources)
        if form.frame == "howto":
            return self._howto(tool, facts, selection, missing, through_value)
        if missing and not from_turn and self._unsure(tool, facts, through_value):
            # the turn names the kind of thing the tool does and none of the values it reads: which
            # tool is meant is a guess ("find me a train"); say so rather than ask for a tool's values
            step = Step(kind="unread", decided_by="unread: tool unsure")
            return Outcome(step, "unmet_object", "Rephrase", self.say.unsure(tool, missing))
        if missing:
            selection = Selection(
                tool=tool.name, arguments=arguments, sources=sources, missing=missing
            )
            step = Step(kind="ask", decided_by="ask: incomplete", selection=selection)
            return Outcome(step, "incomplete", "Supply", self.say.incomplete(tool, missing))
        if unplaced:
            # the turn states what this tool has no place for: named back, never dropped by a run
            step = Step(kind="ask", decided_by="ask: unplaced", selection=selection)
            return Outcome(step, "incomplete", "Rephrase", self.say.unplaced(tool, unplaced))
        assert rule is not None  # every branch that chooses a tool names its rule
        step = Step(kind="tool", decided_by=rule, selection=selection)
        return Outcome(step, "resolved", "None", self.say.resolved(tool, arguments))

    def _unsure(self, tool: CatalogueTool, facts: ClauseFacts, through_value: bool) -> bool:
        return tool_unsure(
            tool,
            facts.clause.tokens,
            facts.found,
            facts.action,
            facts.span,
            self.language,
            through_value,
        )

    def _refused(self, tool: CatalogueTool, facts: ClauseFacts) -> Outcome | None:
        """Declined before any argument is bound: data sent where the tool takes none, or a negated
        order."""
        form = facts.reading.form
        destination = [t for t in facts.reading.destination if t in facts.clause.tokens]
        carries = facts.action in lx.SEND_ACTIONS or "destination" in tool.kinds
        if (
            destination
            and carries
            and not all(any(takes(p, t) for p in tool.params) for t in destination)
        ):
            return self._decline(destination)
        if form.polarity == "negated" and form.frame != "question":
            step = Step(
                kind="decline", decided_by="decline: negated", selection=Selection(tool=tool.name)
            )
            because = self.say.negated(tool)
            return Outcome(step, "resolved", "None", because, declined_because=because)
        return None

    def _howto(
        self,
        tool: CatalogueTool,
        facts: ClauseFacts,
        selection: Selection,
        missing: list[str],
        through_value: bool,
    ) -> Outcome:
        """ "how do I …": say what the tool needs; a question about doing is not the doing."""
        if (
            through_value
            and "turn" not in selection.sources.values()
            and self._unsure(tool, facts, through_value)
        ):
            # "how to get nodes information?" reaches an interface reader only through its nodeId: a
            # question about doing names what the tool reads by, not what it does
            step = Step(kind="unread", decided_by="unread: tool unsure")
            return Outcome(step, "unmet_object", "Rephrase", self.say.unsure(tool, missing))
        asked = Selection(
            tool=tool.name,
            arguments=selection.arguments,
            sources=selection.sources,
            missing=missing,
        )
        step = Step(kind="ask", decided_by="ask: howto", selection=asked)
        return Outcome(
            step,
            "incomplete" if missing else "resolved",
            "Supply" if missing else "None",
            self.say.howto(tool, missing),
        )

    # --- arguments -------------------------------------------------------------------------

    def _arguments(
        self,
        tool: CatalogueTool,
        clause: Clause,
        reading: Reading,
        done: list[Step],
        found: list[tuple[Token, str]] | None = None,
    ) -> tuple[dict[str, str], dict[str, str], list[str], list[str]]:
        """Values by what each parameter is (binding.py); then what the turn does not carry: an
        answer, an earlier step's value, the host's context. Returns arguments, sources, unsure and
        what the turn states that no parameter could take (binding's unplaced)."""
        used = set(clause_span(clause))
        verb_end = max(used) if used else -1
        if found is None:
            found = things(clause.tokens, self.language, self.vocabulary, used)
        binder = Binder(
            tool, clause.tokens, reading, self.language, found, used, self.context.known_values
        )
        senses = self.chooser.senses(clause.tokens)
        binder.bind(senses, verb_end)
        arguments, sources = binder.arguments, binder.sources
        for param in tool.params:
            if param.name in arguments:
                continue
            if self.context.awaiting and param.name in self.context.awaiting.arguments:
                binder.put(param, self.context.awaiting.arguments[param.name], "answer")
            elif reading.pointed and done:
                for number, step in reversed(list(enumerate(done, start=1))):
                    if param.name in step.selection.arguments:
                        binder.put(param, step.selection.arguments[param.name], f"step:{number}")
                        break
            if param.name not in arguments and param.name in self.context.values and param.required:
                binder.put(param, self.context.values[param.name], "context")
        unsure = [
            p.name for p in tool.params if p.name in binder.unsure and p.name not in arguments
        ]
        return (
            dict(sorted(arguments.items())),
            dict(sorted(sources.items())),
            unsure,
            binder.unplaced,
        )

    # --- the whole turn --------------------------------------------------------------------

    def plan(self, reading: Reading) -> TurnPlan:
        if self.context.awaiting and reading.form.act == "reply":
            outcomes = [self._reply(reading)]
        else:
            outcomes = []
            done: list[Step] = []
            for clause in reading.clauses:
                outcome = self.clause(clause, reading, done)
                outcomes.append(outcome)
                done.append(outcome.step)
            # a clause that describes ("the API returns JSON") is no request beside one that is
            outcomes = [o for o in outcomes if o.step.decided_by != _STATEMENT] or outcomes
        declined = next((o for o in outcomes if o.step.kind == "decline"), None)
        if declined is not None:
            # declined whole: no step of it runs, and it is never handed to a model
            outcomes = [declined]
        kinds = {o.step.kind for o in outcomes}
        verdict: PlanOutcome
        if "decline" in kinds:
            verdict = "decline"
        elif "unread" in kinds:
            verdict = "unread"
        elif "ask" in kinds:
            verdict = "ask"
        else:
            verdict = "run"
        lead = next((o for o in outcomes if o.outcome != "resolved"), outcomes[0])
        if verdict == "run" and len(outcomes) > 1:
            render = " ".join(o.render for o in outcomes)
        else:
            render = lead.render
        form = reading.form
        # one validation of the whole plan: pydantic checks each nested value against its Literal
        # (the reader writes act, tense, frame and roles as text) without a model built per part
        return TurnPlan.model_validate(
            {
                "outcome": verdict,
                "language": self.language,
                "steps": [o.step for o in outcomes],
                "guidance": {
                    "outcome": lead.outcome,
                    "next": lead.next,
                    "render": render,
                    "evidence": lead.evidence,
                    "handoff": lead.handoff if verdict == "unread" else None,
                },
                "declined_because": declined.declined_because if declined else None,
                "form": {
                    "act": form.act,
                    "predicate": form.predicate,
                    "roles": [{"role": r, "text": t} for r, t in sorted(form.roles.items())],
                    "polarity": form.polarity,
                    "tense": form.tense,
                    "frame": form.frame,
                },
                "vocabulary_digest": self.vocabulary.digest,
            }
        )

    def _reply(self, reading: Reading) -> Outcome:
        awaiting = self.context.awaiting or Awaiting()
        tool = next((t for t in self.catalogue.tools if t.name == awaiting.tool), None)
        if tool is None:
            return self._unread()
        clause = Clause(reading.tokens, None)
        arguments, sources, _, _ = self._arguments(tool, clause, reading, [])
        arguments = {**awaiting.arguments, **arguments}
        sources = {**{k: "answer" for k in awaiting.arguments}, **sources}
        for name in list(sources):
            if name in awaiting.missing and sources[name] == "turn":
                sources[name] = "answer"
        missing = [p.name for p in tool.params if p.required and p.name not in arguments]
        selection = Selection(
            tool=tool.name,
            arguments=dict(sorted(arguments.items())),
            sources=dict(sorted(sources.items())),
            missing=missing,
        )
        if missing:
            return Outcome(
                Step(kind="ask", decided_by="ask: incomplete", selection=selection),
                "incomplete",
                "Supply",
                self.say.incomplete(tool, missing),
            )
        selection = Selection(
            tool=tool.name, arguments=selection.arguments, sources=selection.sources
        )
        return Outcome(
            Step(kind="tool", decided_by="tool: reply", selection=selection),
            "resolved",
            "None",
            self.say.resolved(tool, selection.arguments),
        )


def plan(
    turn: str,
    catalogue: Catalogue,
    language: str,
    vocabulary: Vocabulary,
    context: Mapping[str, object] | None = None,
) -> TurnPlan:
    """Plan one turn against a catalogue, in the chosen language, with the given vocabulary."""
    if language not in LANGUAGES:
        raise ValueError(
            f"language must be one of {', '.join(LANGUAGES)}; the router never guesses it"
        )
    if vocabulary.language != language:
        raise ValueError(f"the vocabulary is for {vocabulary.language}, not {language}")
    ctx = Context.from_dict(context)
    reading = read(turn[:2000], language, awaiting=bool(ctx.awaiting))
    return Planner(catalogue, cast(Language, language), vocabulary, ctx).plan(
        reading
    )  # checked above
