"""The question screen: what a question asks the answering agent to be, read as a request, not as words.

A commitment is a request that this member be held to something: booked, reserved, scheduled, a date
held, an offer or contract accepted, signed, confirmed, promised, guaranteed, hired, or a price named
(en, pt-BR and es). Such a request is escalated to the member, whatever else it says. The same words
in another sense are not requests: a book's pages, a booking engine built, a reservation as a qualm,
a hire in the past ("who hired Ravi"), a habit ("what jobs does she usually accept"), a message the
asker will send. Those go on to the matcher like any question.

Refusals, as before: instructions to set aside the mandate, a request to call a tool, a request to
send data somewhere. These fire only on requests made to the agent, never on a question about sending.

This screen is the first line for commitments in the question; the answer is made of approved notes
only (#25), so what it misses cannot be agreed to by the agent anyway: it only decides who answers.
"""

from __future__ import annotations

import re

from server.answering.contract import Escalation, Refusal
from server.answering.normalised import normalise
from server.answering.triggers import Triggered

_SUBJECT = r"(?:you|u|ya|voce|vc|tu|usted)"
# someone (or the asker, or the agent) asked to act now or later: a request's opening
_ASK = (
    r"(?:^|[,:;.!?]\s*|\b(?:please|pls|can|could|would|will|pode|poderia|consegue|da pra|quero|queremos|"
    r"queria|gostaria de|vamos|let'?s|i'?d like to|we'?d like to|i want to|we want to|want to|puedes|podes|"
    r"podemos|quiero|queremos|me|nos|por favor|pfv?)\s+(?:" + _SUBJECT + r"\s+)?(?:[a-z]+\s+)?)"
)

# the start of a clause, where a bare verb is an order ("Reserva a terça", "Resérvame el lunes")
_CLAUSE = (
    r"(?:^|[,.;:!?\u00bf\u00a1]\s*)(?:(?:por favor|pfv?|entao|so|bom|ok|oi|ola|hola)\s*,?\s+)?"
)

# a request opener: an order at a clause's start, or the agent asked ("can you", "pode", "puedes")
_OPENER = (
    _CLAUSE
    + r"(?:(?:please|pls|can you|could you|would you|will you|pode|poderia|consegue|vc pode|"
    r"voce pode|puedes|podrias|puede usted|por favor)\s+)?"
)
# verbs of commitment in the forms an order takes (imperative, infinitive after "can you"), en, pt-BR, es
_ORDER_VERBS = (
    r"(?:buy|pay|purchase|sign|accept|agree|confirm|book|reserve|schedule|promise|guarantee|hire|"
    r"commit|compre|compra|comprar|pague|paga|pagar|prometa|promete|prometer|marque|marcar|aceite|aceitar|"
    r"assine|assina|assinar|confirme|reserve|agende|agendar|contrate|contratar|feche|garanta|garantir|"
    r"comprometa|pagame|paguen|prometeme|firme|firma|firmar|acepte|acepta|aceptar|confirmame|reservame|"
    r"agendame|contrata|contrate|cierra|cerrar|garantiza|garantizame)\b"
)

# Requests to commit, each a regular expression over the normalised question.
_COMMIT = [
    _OPENER + _ORDER_VERBS + r"(?!\s+(?:whether|if|se|si)\b)",
    # English
    r"\bbook\s+(?!pages?\b|cover|shop|store|club)(?:(?:me|us|him|her|them)\b(?!\s+own)|[a-z]+\s+(?:for|on|in|to)\b|"
    r"(?:a|an|the|our|my)\s+(?:slot|call|meeting|session|date|day|time|workshop|visit|spot))",
    r"(?:^|\b(?:to|please|can you|could you|you)\s+)(?:book|reserve|schedule|pencil|hire|commission)\b",
    r"\breserve\s+(?!judg)",
    r"\bschedule\s+(?:a|an|the|me|us|our|my)\b",
    r"\bhold\s+(?:the|a|that|this|our|next)?\s*(?:\d|date|day|week|slot|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday|\w+day\b)",
    r"\bsave the date\b",
    r"\bpencil\s+(?:us|me|\w+)\s+in\b",
    r"\block\s+(?:in\s+\w+|\w+\s+in)\b",
    r"\bput\s+(?:us|me|\w+)\s+down\b",
    r"\bsign\s+\w+\s+up\b",
    r"\bsign\s+(?:the|this|our|a|it|that)\b",
    r"\blet'?s\s+sign\b",
    r"\bseal the deal\b",
    r"\b(?:accept|agree to|take on|commit to)\s+(?:our|my|the|this|that|a)\s+(?!kind|sort|type)",
    r"\bconfirm\b(?!ed|\s+(?:whether|if)\b)",
    r"\b(?:you|u)\s+(?:promise|guarantee)\b",
    r"\b(?:promise|guarantee)\s+(?:me|us|that|he|she|they|it|\w+\s+will)\b",
    r"\bhire\s+(?!(?:junior|people|staff))\w+\s+for\b",
    r"\bblock\s+(?:off|out)\b",
    r"\bset\s+up\s+(?:a|an)\s+(?:call|meeting|session|chat)\b",
    r"\bwant to hire\b",
    r"\bcommission\s+\w+\s+for\b",
    r"\bup for taking\b",
    # Portuguese
    r"\breservar\b",
    _CLAUSE + r"reserv[ae]\b",
    r"\bagend(?:ar|e|a)\s+(?:uma|um|a|o|pra|para|com|\w+\s+com)\b",
    r"\bmarc(?:ar|a|e)\s+(?:uma|um)\s+(?:reuniao|call|conversa|horario|visita|encontro)",
    r"\bsegur(?:ar|a|e)\s+(?:a|o|essa|esse)?\s*(?:data|dia|semana|horario)",
    r"\bbloque(?:ar|ia|ie)\s+(?:a|o)\s+agenda",
    r"\bfech(?:ar|a|e|ado)\b(?!\s+(?:em|aos|no|de)\b)",
    r"\bconfirm(?:ar|a|e)\b(?!\s+se\b)",
    r"\btop(?:a|ar|e)\b",
    r"\baceit(?:ar|a|e)\s+(?:o|a|os|as)?\s*(?:convite|proposta|oferta|contrato|fazer|nosso|nossa|meu|minha|trabalho|job|projeto)",
    r"\bcontrat(?:ar|e)\b(?!\s+(?:a\s+\w+\s+)?(?:so|apenas|somente)\b)",
    r"\bassin(?:ar|a|e)\s+(?:o|a|um|uma|esse|este)?\s*contrato",
    r"\bgarant(?:ir|a)\b",
    r"\bcomprometer\b",
    r"\b(?:bota|coloca|poe)\s+(?:a|o)?\s*\w+\s+na\s+(?:nossa|minha|sua)?\s*agenda",
    # Spanish
    r"\breserv(?:anos|ame|ale)\b",
    r"\bagend(?:ar|a|ame|anos)\b",
    r"\bapart(?:ar|a|ame|anos)\b",
    r"\bguard(?:ar|a|ame|anos)\s+(?:la|el)\s+(?:fecha|dia)",
    r"\bbloque(?:ar|a|e)\s+la\s+agenda",
    r"\bcerrar el trato\b",
    r"\bconfirm(?:ar|a|ame|anos)\b(?!\s+(?:si|se)\b)",
    r"\bacept(?:ar|a)\s+(?:nuestra|nuestro|mi|la|el|hacer|interpretar)",
    r"\bcontrat(?:ar|e|a)\s+a\s+\w+\b(?!\s+(?:so|solo|solamente|apenas|somente)\b)",
    r"\bfirm(?:ar|a)\s+(?:el|un|este|ese)\s+contrato",
    r"\bgarantiz(?:ar|as|a)\b",
    r"\bse compromete\b",
    r"\bacepta\s+\w+\s+(?:hacer|interpretar|traducir|nuestra|nuestro|el|la)\b",
    r"\bcomprometerse\b",
]

# Asking for a price, or naming one: what this member would be held to.
_PRICE = [
    r"(?:[$\u20ac\u00a3]|\br\$|\b(?:usd|eur|brl))\s?\d",
    r"\b\d+(?:[.,]\d+)?\s?(?:k|mil|reais|dolares|dollars|euros|bucks|grand)\b",
    r"\bhow much\b(?!\s+(?:text|time|work|experience))",
    r"\b(?:price|prices|fee|fees|quote|estimate|budget)\b(?!\s+(?:feed|engine))",
    r"\b(?:hourly|daily|day|day's)\s+rate\b",
    r"\b(?:his|her|their|your)\s+rates?\b",
    r"\brates?\s+(?:for|per)\b",
    r"\bcharge\s+(?:for|per|to)\b",
    r"\bcost\b",
    r"\bquanto\s+(?:custa|cobra|sai|fica|e)\b",
    r"\bqto\s+(?:custa|cobra|\w+\s+cobra)",
    r"\bcobra\s+(?:por|pra|para)\b",
    r"\b(?:valor|preco|orcamento|cotacao|cache)\b",
    r"\bcuanto\s+(?:cobra|cuesta|sale|vale)\b",
    r"\b(?:precio|tarifa|presupuesto|cotizacion)\b",
]

_INSTRUCTIONS = re.compile(
    r"\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(instruction|instructions|rules|mandate|prompt|guidelines)\b"
    r"|\b(system prompt|developer mode|jailbreak|you are now|act as|pretend (to be|you)|new instructions)\b"
    r"|\b(ignore|esqueca|desconsidere|ignora|olvida)\b.{0,40}\b(instrucoes|instrucao|regras|mandato|prompt|instrucciones|reglas)\b"
    r"|\b(finja|a partir de agora voce|modo desenvolvedor|voce agora e|ahora eres)\b"
)
# a tool call asked of the agent: an order or "can you ...", not a question about what a member uses
_TOOL_CALL = re.compile(
    _ASK
    + r"(?:call|invoke|run|execute|trigger|use|chame|chama|invoque|execute|executa|rode|roda|use|usa|llama|ejecuta)"
    r"\b.{0,30}\b(?:tool|function|api|endpoint|ferramenta|funcao|herramienta|funcion|[a-z]+_[a-z_]+)\b"
    r"|\b[a-z]+_[a-z]+(?:_[a-z]+)*\s*\("
)
# data sent somewhere, asked of the agent: "send me her notes", "manda pro meu email", "forward this to x@y"
_SENDS = re.compile(
    r"(?:^|\b(?:please|can you|could you|would you|pode|poderia|consegue|puedes|por favor)\s+)"
    r"(?:send|forward|email|e-mail|mail|post|upload|share|envie|envia|enviar|manda|mande|mandar|encaminha|encaminhe|"
    r"compartilha|compartilhe|envia|envie|mandame|enviame|reenvia)\b"
    r"|\b(?:to|para|pra|pro|a)\s+(?:\S+@\S+|https?://|www\.)"
)


def classify(question: str, language: str) -> tuple[Refusal | None, Escalation | None]:
    """(refused, escalate) before any note is looked at: what this question asks the agent to be.

    `language` is the asker's ("en" or "pt-BR"); Spanish is read too, whatever the tag says."""
    text = " ".join(normalise(question).split())
    if _INSTRUCTIONS.search(text):
        return "instructions", None
    if _TOOL_CALL.search(text):
        return "tools", None
    if _SENDS.search(text):
        return "sends_data", None
    if _commitment(text):
        return None, "commitment"
    return None, None


# Each list searched as one: whether any of its patterns matches, each pattern run only on a question
# holding one of the strings its matches must contain (`triggers`): most questions run none of them.
_COMMIT_RE = Triggered(_COMMIT)
_PRICE_RE = Triggered(_PRICE)
# "alguma reserva com", "una reserva sobre": a reservation as a qualm, a noun after its determiner
_QUALM = re.compile(r"\b(uma|alguma|nenhuma|sua|minha|una|alguna|ninguna|su|mi)\s+reserva\b")
_REFLEXIVE = re.compile(r"\bcobra\w*\s+(?:muito\s+)?de\s+si\b|\bse cobra\b")


# "Did Ravi sign the open letter?": a question about what was done, not a request
_PAST_QUESTION = re.compile(r"^(?:did|has|have|had|was|were)\b")


def _commitment(text: str) -> bool:
    if _PAST_QUESTION.search(text) and not _PRICE_RE.search(text):
        return False
    text = _QUALM.sub(r"\1 ressalva", text)
    if _COMMIT_RE.search(text):
        return True
    return bool(_PRICE_RE.search(text)) and not _REFLEXIVE.search(text)
