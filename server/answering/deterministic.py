"""The default answering agent: deterministic, it selects from the notes it was given.

It informs and nothing else. A question that asks it to accept, agree, book, schedule, buy, pay,
promise or quote a price is declined and escalated as a commitment; a question outside the
mandate's topics is escalated; a request to send data somewhere, to call a tool, or to set aside
its instructions is refused. It reads questions with the router's grammar, the same reader the
`plan` tool uses.
"""

from __future__ import annotations

import re

from server.answering.contract import MAX_QUOTED, Escalation, Note, Refusal, ScopedRequest, Selection, Terms
from server.answering.text import readable
from server.router import lexicon as lx
from server.router.reader import fold, read

PRICE_WORDS = frozenset({"price", "prices", "rate", "rates", "fee", "fees", "cost", "costs", "quote", "budget",
                         "charge", "charges", "preco", "precos", "valor", "valores", "taxa", "taxas", "custo",
                         "custa", "orcamento", "cotacao", "cobra", "honorarios", "tarifa", "cachê", "cache"})
INSTRUCTIONS = re.compile(
    r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(instruction|instructions|rules|mandate|prompt|guidelines)\b"
    r"|\b(system prompt|developer mode|jailbreak|you are now|act as|pretend (to be|you)|new instructions)\b"
    r"|\b(ignore|esqueca|desconsidere|ignora)\b.{0,40}\b(instrucoes|instrucao|regras|mandato|prompt)\b"
    r"|\b(finja|a partir de agora voce|modo desenvolvedor|voce agora e)\b"
)
TOOL_CALL = re.compile(
    r"\b(call|invoke|run|execute|use|trigger)\b.{0,30}\b(tool|function|api|endpoint|[a-z]+_[a-z_]+)\b"
    r"|\b(chame|chama|invoque|execute|executa|rode|roda|use|usa)\b.{0,30}\b(ferramenta|funcao|api|[a-z]+_[a-z_]+)\b"
    r"|\b[a-z]+_[a-z]+(_[a-z]+)*\s*\("
)


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def _content(text: str, language: str) -> set[str]:
    function = lx.FUNCTION_WORDS[language] | lx.FUNCTION_WORDS["en"] | lx.FUNCTION_WORDS["pt-BR"]
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", fold(readable(text))) if len(w) >= 3 and w not in function}


def classify(question: str, language: str) -> tuple[Refusal | None, Escalation | None]:
    """(refused, escalate) before any note is looked at: what this question asks the agent to be."""
    question = readable(question)
    folded = fold(question)
    if INSTRUCTIONS.search(folded):
        return "instructions", None
    if TOOL_CALL.search(folded):
        return "tools", None
    reading = read(question, language)
    form = reading.form
    if reading.destination or any(c.verb and c.verb.action == "send" for c in reading.clauses):
        return "sends_data", None
    commitment = any(
        c.verb and c.verb.action in lx.COMMITMENTS and c.verb.tense != "past" for c in reading.clauses
    )
    words = set(re.findall(r"[a-z]+", folded))
    if commitment or (words & PRICE_WORDS):
        return None, "commitment"
    if form.act in ("act", "change", "give") and form.tense != "past" and form.predicate not in ("ask", "plan"):
        return None, "commitment"
    return None, None


def screen(request: ScopedRequest) -> Selection | None:
    """What every answerer settles before looking at notes: refusals, and commitments to escalate."""
    refused, escalate = classify(request.question, request.language)
    if refused is not None:
        return Selection(refused=refused)
    if escalate is not None:
        return Selection(escalate=escalate)
    return None


def answer(request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
    """Choose, from the notes handed, the ones that answer this scoped request; or escalate."""
    screened = screen(request)
    if screened is not None:
        return screened
    asked = _content(request.question, request.language)
    topics = {topic for topic in terms.topics if _stem(fold(topic)) in asked or _content(topic, "en") & asked}
    relevant = [note for note in notes if note.topic in topics]
    if not relevant:
        # a note whose words answer the question, under a topic the mandate covers
        relevant = [note for note in notes if note.topic in terms.topics
                    and len(_content(note.text, request.language) & asked) >= 2]
    if not relevant:
        return Selection(escalate="outside_mandate")
    if len(relevant) > MAX_QUOTED:  # more notes than an answer may quote: not sure which answers
        return Selection(escalate="outside_mandate", candidates=tuple(n.id for n in relevant[:MAX_QUOTED]))
    return Selection(notes=tuple(note.id for note in relevant))
