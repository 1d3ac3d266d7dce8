"""Which tool a clause reaches: the tools its verb reaches (a past question only readers), those
whose thing it names first, then narrowed by their own verb, by a value the context knows, by
adjective, and siblings told apart. The planner (planner.py) turns the choice into a step.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.router import lexicon as lx
from server.router.accounting import taker_of_known
from server.router.catalogue import Catalogue, CatalogueTool
from server.router.context import Context
from server.router.model import Language
from server.router.reader import Clause, Reading, Token
from server.router.selection import (
    CLOSE,
    TurnWords,
    by_purpose,
    clause_span,
    qualifier_only,
    rank,
    reaching,
    things,
)
from server.router.siblings import told_apart
from server.router.vocabulary import Vocabulary


@dataclass(frozen=True)
class ClauseFacts:
    """What one clause says, read once; each stage of choosing its tool reads what it needs."""

    clause: Clause
    reading: Reading
    span: set[int]
    action: str | None
    found: list[tuple[Token, str]]  # (token, noun) for every thing the clause names
    known: list[tuple[Token, str]]  # those whose noun the catalogue's tools know
    past_question: bool


@dataclass(frozen=True)
class Choice:
    """The tools a clause chose, the rule that chose them, and what the planner reads after."""

    facts: ClauseFacts
    known: list[
        tuple[Token, str]
    ]  # the things named that the catalogue knows (none after an unknown verb)
    tools: list[CatalogueTool]
    rule: str | None
    through_value: bool  # reached through a value the tool reads, not its thing


class ToolChooser:
    def __init__(
        self, catalogue: Catalogue, language: Language, vocabulary: Vocabulary, context: Context
    ):
        self.catalogue = catalogue
        self.language = language
        self.vocabulary = vocabulary
        self.context = context
        self.nouns = catalogue.nouns

    def choose(self, clause: Clause, reading: Reading) -> Choice:
        facts = self._facts(clause, reading)
        by_action, known, known_nouns = self._reached(facts)
        chosen, rule, through_value = self._chosen(facts, by_action, known_nouns)
        chosen, rule = self._narrowed(facts, chosen, rule, by_action)
        return Choice(facts, known, chosen, rule, through_value)

    def _facts(self, clause: Clause, reading: Reading) -> ClauseFacts:
        span = clause_span(clause)
        found = things(clause.tokens, self.language, self.vocabulary, span)
        return ClauseFacts(
            clause=clause,
            reading=reading,
            span=span,
            action=clause.verb.action if clause.verb else None,
            found=found,
            known=[(token, noun) for token, noun in found if noun in self.nouns],
            past_question=reading.form.tense == "past",
        )

    def _reached(
        self, facts: ClauseFacts
    ) -> tuple[list[CatalogueTool], list[tuple[Token, str]], list[str]]:
        """The tools the clause's verb reaches, the things it names that the catalogue knows, and
        their nouns (a past question about doing adds the nouns the doing makes)."""
        clause, form, action, known = facts.clause, facts.reading.form, facts.action, facts.known
        known_nouns = [noun for _, noun in known]
        tools = self.catalogue.tools
        first = next((t for t in clause.tokens if t.kind == "word"), None)
        unknown_verb = (
            action is None
            and first is not None
            and first is clause.tokens[0]
            and first.norm not in lx.FUNCTION_WORDS[self.language]
            and not any(token is first for token, _ in known)
        )
        if unknown_verb and form.frame != "question":
            # the turn opens with a word in a verb's place that this language's grammar does not know
            by_action = []
            known = []
            known_nouns = []
        elif action is None and (form.frame in ("question", "none", "ordering")) and known:
            # "what's in my inbox?", "meu perfil": a read of the thing named
            by_action = [t for t in tools if not t.writes]
        else:
            by_action = list(reaching(self.catalogue, action))
            if not by_action and action == "give" and form.frame == "ordering":
                # "give me a recipe": with nothing here that gives, a request to be told, read
                by_action = [t for t in tools if not t.writes]
        if facts.past_question:
            by_action, known_nouns = self._reached_in_the_past(by_action, action, known_nouns)
        return by_action, known, known_nouns

    def _reached_in_the_past(
        self, by_action: list[CatalogueTool], action: str | None, known_nouns: list[str]
    ) -> tuple[list[CatalogueTool], list[str]]:
        """A past-tense question never writes: its writers give way to the readers of their things."""
        writers: list[CatalogueTool] | list[str] = [t for t in by_action if t.writes]
        by_action = [t for t in by_action if not t.writes]
        if action and lx.ACTIONS.get(action) != "read" and not known_nouns:
            # "did anyone reply?": a past question about doing asks about what the doing makes
            made = [self.vocabulary.noun(w) for w in lx.ACTION_NOUNS[self.language].get(action, ())]
            known_nouns = [n for n in dict.fromkeys(made) if n and n in self.nouns][:1]
            writers = writers or known_nouns
        if writers and known_nouns:
            by_action += [
                t
                for t in self.catalogue.tools
                if not t.writes and any(n in t.nouns for n in known_nouns) and t not in by_action
            ]
        return by_action, known_nouns

    def _chosen(
        self, facts: ClauseFacts, by_action: list[CatalogueTool], known_nouns: list[str]
    ) -> tuple[list[CatalogueTool], str | None, bool]:
        """The tools the clause chooses among those reached, the rule that chose them, and whether
        the choice went through a value the tool reads (derived) rather than its thing."""
        action, found = facts.action, facts.found
        # the first noun the turn names is what it is about; later ones qualify it ("the card of order 4411");
        # among the tools whose thing the turn names, the one whose name it names most fully
        primary = known_nouns[:1]
        admission = [t for t in by_action if primary[0] in t.nouns] if primary else []
        ranked = rank(
            by_action,
            TurnWords(found, facts.clause.tokens),
            primary[0] if primary else None,
            action,
        )
        admission = ranked or [t for t in admission if not t.adjectives]
        admitted = {
            id(t) for t in admission
        }  # by identity: comparing two tools field by field is slow
        derived = (
            [t for t in by_action if id(t) not in admitted and primary[0] in t.param_nouns]
            if primary
            else []
        )
        rule = (
            "tool: past tense"
            if facts.past_question and action and lx.ACTIONS.get(action) != "read"
            else None
        )
        # a tool named by its verb alone is reached by that verb's own action, not by any reading verb
        verb_only = [
            t for t in by_action if not t.nouns and t.action in CLOSE.get(action or "", {action})
        ]
        if admission:
            return admission, rule or "tool: admission", False
        if not derived and action is not None and len(verb_only) == 1 and len(by_action) == 1:
            # a tool named by its verb alone (apply, ask, plan) takes what the turn is about as input
            return verb_only, rule or "tool: derived", False
        if derived:
            return derived, rule or "tool: derived", True
        return self._chosen_by_verb(facts, by_action, rule)

    def _chosen_by_verb(
        self, facts: ClauseFacts, by_action: list[CatalogueTool], rule: str | None
    ) -> tuple[list[CatalogueTool], str | None, bool]:
        """With no tool whose thing the turn names: the verb's own tool, an ambiguity, or the tools
        whose description's thing the turn names."""
        action, found = facts.action, facts.found
        if (
            not found
            and len(by_action) == 1
            and action is not None
            and by_action[0].action in CLOSE.get(action, {action})
        ):
            # a verb alone reaches the one tool of its own action ("search" a search tool), not any reader
            return by_action, rule or "tool: derived", False
        if not found and len(by_action) > 1 and action is not None:
            return by_action, "ask: ambiguous", False
        if action is not None and (served := by_purpose(by_action, found)):
            # no tool's name names the thing, but one's description says it acts on it ("find a therapist":
            # "Discover therapists in a city"); two such are asked about
            return served, rule or "tool: purpose", False
        return [], rule, False

    def _narrowed(
        self,
        facts: ClauseFacts,
        chosen: list[CatalogueTool],
        rule: str | None,
        by_action: list[CatalogueTool],
    ) -> tuple[list[CatalogueTool], str | None]:
        """The chosen tools narrowed: by their own verb, by a value the context knows, by adjective,
        and siblings told apart."""
        action, found, clause = facts.action, facts.found, facts.clause
        tools = self.catalogue.tools
        if rule in ("tool: admission", "tool: purpose"):
            # a tool whose own verb the turn does not use rests on its thing alone: "movie tickets"
            # names tickets, and a movie search is not what the turn is about ("calculate the average
            # grade" uses calculate_average's verb, and stays)
            chosen = [
                t
                for t in chosen
                if t.action in CLOSE.get(action or "", {action})
                or not qualifier_only(t, found, tools)
            ]
        readers = (
            [t for t in tools if not t.writes] if facts.reading.form.frame == "question" else []
        )
        known_taker = taker_of_known(
            chosen, by_action or readers, clause.tokens, self.context.known_values, self.language
        )
        if known_taker:
            chosen, rule = known_taker, "tool: derived"
        if len(chosen) > 1:
            chosen = self._prefer_by_adjective(chosen, clause) or chosen
        if rule == "tool: admission":
            chosen = told_apart(chosen, by_action, clause.tokens, action)
        return chosen, rule

    def senses(self, tokens: list[Token]) -> list[tuple[Token, tuple[str, bool]]]:
        """The vocabulary's adjectives and adverbs in these tokens, two-word ones first ("for good")."""
        found: list[tuple[Token, tuple[str, bool]]] = []
        if not self.vocabulary.adjectives:
            return found
        words = [t for t in tokens if t.kind == "word"]
        i = 0
        while i < len(words):
            pair = f"{words[i].norm} {words[i + 1].norm}" if i + 1 < len(words) else None
            sense = self.vocabulary.adjective(pair) if pair else None
            if sense:
                found.append((words[i], sense))
                i += 2
                continue
            sense = self.vocabulary.adjective(words[i].norm)
            if sense:
                found.append((words[i], sense))
            i += 1
        return found

    def _prefer_by_adjective(
        self, tools: list[CatalogueTool], clause: Clause
    ) -> list[CatalogueTool]:
        """Adjectives and adverbs choose between tools a turn already reached; never reach one alone."""
        wanted = {means for _, (means, same) in self.senses(clause.tokens) if same}
        if not wanted:
            return []
        return [t for t in tools if wanted & (set(t.adjectives) | set(t.name.split("_")))]
