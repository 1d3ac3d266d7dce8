"""The answer an asker reads, composed on the trusted side from the principal's approved notes only.

An answerer (deterministic, or a model in a confined worker) returns a `Selection`: note ids, or an
escalation, or a refusal. This module turns that selection into the subagent contract's `Answer`,
and it is the only place that does. The findings are Parley's fixed framing around the chosen
notes, quoted with their id and date; every other word is one of the templates below. So
whatever an answerer would like to say — a commitment, a price, an instruction to the asking agent —
has no way into the answer: there is no field it could put it in.

What the principal approved can still bind them: a note that states a price, an offer of time,
money or work, or something they would be held to, or that carries a link or speaks to an agent, is
quoted only when the principal ticked "my agent may relay this as written" when approving it;
otherwise the question escalates with that note attached (`consent_needed`). The flags that decide
this are the checks' reading of the note's text; they are a second line: the first is that only
approved words are ever quoted. A note that hides characters or uses look-alike letters is held the
same way (fail closed: what a person cannot read, they did not approve).

The answer carries each quoted note as data too (`Answer.quotes`: id, exact text, author, date). In
the prose, a note's text sits inside Parley's quotation marks with its own double quotation marks
turned into single ones (`inline`), so no note can close the quotation and write Parley's framing or
another note's attribution after it: each note has exactly one attribution, Parley's.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from server.answering.checks import Flag, flags
from server.answering.contract import (
    Answer,
    Escalation,
    Note,
    Quote,
    Refusal,
    ScopedRequest,
    Selection,
    Terms,
)
from server.answering.text import visible

log = logging.getLogger("parley.answering.grounding")

# Flags a note may carry and still be quoted without the principal's explicit consent: none that binds.
CONSENT_FLAGS: frozenset[Flag] = frozenset(
    {"commitment", "price", "instructions", "link", "invisible", "lookalike"}
)
# Double quotation marks a note may hold, as the single ones that cannot end Parley's quotation.
INLINE = str.maketrans(
    {
        "\u201c": "\u2018",
        "\u201d": "\u2019",
        '"': "'",
        "\u201e": "\u201a",
        "\u201f": "\u201b",
        "\u00ab": "\u2039",
        "\u00bb": "\u203a",
        "\u2033": "\u2032",
        "\uff02": "\uff07",
        "\u301d": "\u2018",
        "\u301e": "\u2019",
        "\u301f": "\u2019",
    }
)

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "quoted": "{who}'s agent (may be quoted, with attribution), from {who}'s notes: {body}",
        "unquoted": "{who}'s agent (not for quotation), from {who}'s notes: {body}",
        "note": "\u201c{text}\u201d (note {id}, {date})",
        "commitment": "{who}'s agent cannot agree, accept, book, buy, pay, promise or quote a price for {who}; "
        "the question went to {who} in person.",
        "outside": "{who}'s agent has nothing it may say about this; the question went to {who} in person.",
        "sends_data": "{who}'s agent does not send data anywhere; it only answers here.",
        "instructions": "{who}'s agent works only under the mandate {who} signed; it does not take new instructions.",
        "tools": "{who}'s agent has no tools and calls none; it only answers from what {who} allowed it to say.",
    },
    "pt-BR": {
        "quoted": "O agente de {who} (pode ser citado, com atribuição), das notas de {who}: {body}",
        "unquoted": "O agente de {who} (não para citação), das notas de {who}: {body}",
        "note": "\u201c{text}\u201d (nota {id}, {date})",
        "commitment": "O agente de {who} não pode aceitar, concordar, reservar, comprar, pagar, prometer nem cotar "
        "preço por {who}; a pergunta foi para {who} pessoalmente.",
        "outside": "O agente de {who} não tem nada que possa dizer sobre isso; a pergunta foi para {who} pessoalmente.",
        "sends_data": "O agente de {who} não envia dados para lugar nenhum; só responde aqui.",
        "instructions": "O agente de {who} trabalha só sob o mandato que {who} assinou; não recebe novas instruções.",
        "tools": "O agente de {who} não tem ferramentas e não chama nenhuma; só responde com o que {who} permitiu.",
    },
}


@dataclass(frozen=True)
class Approved:
    """A note the principal approved, as the trusted side knows it (the answerer sees only `note`)."""

    note: Note
    date: str  # the day it was last changed, YYYY-MM-DD
    relay: bool  # the principal ticked "my agent may relay this as written"


@dataclass(frozen=True)
class Grounded:
    answer: Answer
    quoted: tuple[str, ...] = ()  # the note ids the findings quote
    attached: tuple[str, ...] = ()  # note ids the principal should see beside an escalated question


def inline(text: str) -> str:
    """A note's text as the answer's prose quotes it: visible characters only, and no double
    quotation mark that could end the quotation around it."""
    return visible(text).translate(INLINE)


def consent_needed(note: Note, who: str) -> frozenset[Flag]:
    """What in this note only the principal's "relay as written" lets an agent repeat."""
    return _consent_needed(note.topic, note.text, who)


@functools.lru_cache(maxsize=4096)
def _consent_needed(topic: str, text: str, who: str) -> frozenset[Flag]:
    """The checks read a note's words the same way every time (a pure function of the strings), and an
    ask quotes the same approved notes again and again: remembered by the words themselves, so an
    edited note is read afresh. Bounded: a few thousand notes' words at most."""
    return (flags(topic, who) | flags(text, who)) & CONSENT_FLAGS


def escalation(
    request: ScopedRequest, terms: Terms, reason: Escalation, attached: tuple[str, ...] = ()
) -> Grounded:
    key = "commitment" if reason == "commitment" else "outside"
    answer = Answer(
        answered=False,
        scopedRequest=request.question,
        openQuestions=[request.question],
        escalate=reason,
        findings=TEXT[request.language][key].format(who=terms.principal),
    )
    return Grounded(answer, attached=attached)


def refusal(request: ScopedRequest, terms: Terms, reason: Refusal) -> Grounded:
    answer = Answer(
        answered=False,
        scopedRequest=request.question,
        openQuestions=[request.question],
        refused=reason,
        findings=TEXT[request.language][reason].format(who=terms.principal),
    )
    return Grounded(answer)


def compose(
    request: ScopedRequest, terms: Terms, selection: Selection, handed: Mapping[str, Approved]
) -> Grounded:
    """The answer to deliver for `selection`, made only of templates and the `handed` notes' own words.

    A selection naming a note that was not handed (an id the answerer invented, or one of a note
    the mandate does not reveal) escalates: the answerer is not trusted to know what it may quote."""
    if selection.refused is not None:
        return refusal(request, terms, selection.refused)
    if selection.escalate is not None:
        return escalation(
            request,
            terms,
            selection.escalate,
            tuple(dict.fromkeys(i for i in selection.candidates if i in handed)),
        )
    chosen = tuple(dict.fromkeys(selection.notes))
    if any(note_id not in handed for note_id in chosen):
        log.warning(
            "an answerer for %s named a note it was not handed; the question escalates",
            terms.principal,
        )
        return escalation(request, terms, "outside_mandate")
    binding = tuple(
        i for i in chosen if not handed[i].relay and consent_needed(handed[i].note, terms.principal)
    )
    if binding:
        return escalation(request, terms, "commitment", binding)
    say = TEXT[request.language]
    body = " ".join(
        say["note"].format(text=inline(handed[i].note.text), id=i, date=handed[i].date)
        for i in chosen
    )
    template = say["quoted"] if terms.quotable else say["unquoted"]
    answer = Answer(
        answered=False,
        scopedRequest=request.question,
        findings=template.format(who=terms.principal, body=body),
        quotes=tuple(
            Quote(
                quoted=handed[i].note.text,
                by=terms.principal,
                note_id=i,
                date=handed[i].date,
            )
            for i in chosen
        ),
    )
    return Grounded(answer, quoted=chosen)
