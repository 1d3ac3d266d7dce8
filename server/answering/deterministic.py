"""The default answering agent: deterministic, it selects and composes from the notes it was given.

It informs and nothing else. A question that asks it to accept, agree, book, schedule, buy, pay,
promise or quote a price is declined and escalated as a commitment; a question outside the
mandate's topics is escalated; a request to send data somewhere, to call a tool, or to set aside
its instructions is refused. It reads questions with the router's grammar, the same reader the
`plan` tool uses.
"""

from __future__ import annotations

import re

from server.answering.contract import Answer, Escalation, Note, Refusal, ScopedRequest, Terms
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

TEXT = {
    "en": {
        "quoted": "{who}'s agent (may be quoted, with attribution): {body}",
        "unquoted": "{who}'s agent (not for quotation): {body}",
        "commitment": "{who}'s agent cannot agree, accept, book, buy, pay, promise or quote a price for {who}; "
                      "the question went to {who} in person.",
        "outside": "{who}'s agent has nothing it may say about this; the question went to {who} in person.",
        "sends_data": "{who}'s agent does not send data anywhere; it only answers here.",
        "instructions": "{who}'s agent works only under the mandate {who} signed; it does not take new instructions.",
        "tools": "{who}'s agent has no tools and calls none; it only answers from what {who} allowed it to say.",
    },
    "pt-BR": {
        "quoted": "O agente de {who} (pode ser citado, com atribuição): {body}",
        "unquoted": "O agente de {who} (não para citação): {body}",
        "commitment": "O agente de {who} não pode aceitar, concordar, reservar, comprar, pagar, prometer nem cotar "
                      "preço por {who}; a pergunta foi para {who} pessoalmente.",
        "outside": "O agente de {who} não tem nada que possa dizer sobre isso; a pergunta foi para {who} pessoalmente.",
        "sends_data": "O agente de {who} não envia dados para lugar nenhum; só responde aqui.",
        "instructions": "O agente de {who} trabalha só sob o mandato que {who} assinou; não recebe novas instruções.",
        "tools": "O agente de {who} não tem ferramentas e não chama nenhuma; só responde com o que {who} permitiu.",
    },
}


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def _content(text: str, language: str) -> set[str]:
    function = lx.FUNCTION_WORDS[language] | lx.FUNCTION_WORDS["en"] | lx.FUNCTION_WORDS["pt-BR"]
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", fold(text)) if len(w) >= 3 and w not in function}


def classify(question: str, language: str) -> tuple[Refusal | None, Escalation | None]:
    """(refused, escalate) before any note is looked at: what this question asks the agent to be."""
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


def screen(request: ScopedRequest, terms: Terms) -> Answer | None:
    """What every answerer settles before looking at notes: refusals, and commitments to escalate."""
    say = TEXT[request.language]
    who = terms.principal
    refused, escalate = classify(request.question, request.language)
    if refused is not None:
        return Answer(answered=False, scopedRequest=request.question, findings=say[refused].format(who=who),
                      openQuestions=[request.question], refused=refused)
    if escalate is not None:
        return escalated(request, terms, escalate)
    return None


def escalated(request: ScopedRequest, terms: Terms, reason: Escalation) -> Answer:
    key = "commitment" if reason == "commitment" else "outside"
    return Answer(answered=False, scopedRequest=request.question, openQuestions=[request.question], escalate=reason,
                  findings=TEXT[request.language][key].format(who=terms.principal))


def composed(request: ScopedRequest, terms: Terms, body: str) -> Answer:
    say = TEXT[request.language]
    template = say["quoted"] if terms.quotable else say["unquoted"]
    return Answer(answered=False, scopedRequest=request.question, findings=template.format(who=terms.principal, body=body))


def answer(request: ScopedRequest, terms: Terms, notes: list[Note]) -> Answer:
    """Answer one scoped request under the terms, from the notes, and nothing else."""
    screened = screen(request, terms)
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
        return escalated(request, terms, "outside_mandate")
    return composed(request, terms, " ".join(note.text for note in relevant))
