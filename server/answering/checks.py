"""What a person should look at twice in a note: the flags shown when a principal approves one.

Pure functions over text, no I/O. They read English, Brazilian Portuguese and Spanish whatever
language the note is in. They are not what keeps an answer from committing anyone: answers are
made only of notes the principal approved (`grounding.py`). They decide which approved notes need
the principal's "relay as written" before an agent may quote them, and what the approval page marks.

- `commits(text)`: the text accepts, agrees, confirms, books, reserves, schedules, signs, commits,
  promises, guarantees, buys, pays or hires for someone, or says "deal", "done", "see you Friday",
  "fechado", "combinado", "trato hecho" … in any tense, person or voice.
- `quotes_price(text)`: an amount of money in any currency or notation, a rate ("900/day"), or a
  price word next to a bare number ("Ana cobra 500").
- `instructions(text)`: text that speaks to an agent (ignore previous instructions, call a tool,
  send a token somewhere, you are now …) or carries a link or contact detail.
- `flags(text)`: all of the above, plus invisible characters and look-alike letters.

Every function reads the text as people read it (`text.readable`: NFKC, no invisible characters,
look-alike letters mapped), so "bооked" with Cyrillic o's is "booked".
"""

from __future__ import annotations

import re
from typing import Literal

from server.answering.commitments import commits
from server.answering.prices import quotes_price
from server.answering.text import fold, invisible, lookalikes

# --- instructions and links ---------------------------------------------------------------------

INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip|ignora|ignorar|esqueca|esqueça|esquece|desconsidere|"
    r"desconsidera|olvida|olvide|omite|descarta)\b.{0,60}\b(?:instructions?|rules|prompts?|guidelines|mandate|"
    r"directions|orders|instrucoes|instruções|instrucao|instrução|regras|orientacoes|orientações|mandato|"
    r"instrucciones|reglas|indicaciones|ordenes|órdenes)\b"
    r"|\b(?:system prompt|developer mode|jailbreak|you are now|you're now|from now on,? you|act"
    r" as|pretend (?:to be|you)|"
    r"new instructions|prompt do sistema|a partir de agora,? (?:voce|você)|(?:voce|você) agora e|finja|eres ahora|"
    r"ahora eres|a partir de ahora,? (?:eres|tu|tú|usted)|finge|modo desarrollador|nuevas instrucciones|"
    r"novas instrucoes|novas instruções|instrucciones nuevas)\b"
    r"|\b(?:call|invoke|run|execute|use|trigger|chame|chama|invoque|invoca|execute|executa|rode|roda|use|usa|llama|"
    r"llame|ejecuta|ejecute|utiliza|utilize)\b.{0,40}\b(?:tool|function|ferramenta|funcao|função|herramienta|"
    r"funcion|función|[a-z]+_[a-z_]+)\b"
    r"|\b[a-z]+_[a-z]+(?:_[a-z]+)*\s*\("
    r"|\b(?:send|post|forward|email|e-mail|share|paste|upload|include|give|leak|transmit|envie|envia|mande|manda|"
    r"encaminhe|compartilhe|cole|inclua|entregue|reenvia|reenvie|comparte|comparta|pega|pegue|incluye|incluya|"
    r"entrega|entregue)\b.{0,60}\b(?:tokens?|credentials?|bearer|api[ -]?keys?|passwords?|secrets?|senhas?|"
    r"credenciais|credenciales|contraseñas?|contrasenas?|claves?|chaves?|cookies?|session ids?)\b"
    r"|\bbearer\b|\b(?:api[ -]?key|access token|refresh token|authorization header)\b"
    r"|\b(?:if you are|if you're|to any|attention|note to|dear|hey|atenção|atencao|aviso (?:ao"
    r"|para o)|si eres|atención|"
    r"atencion)\b,? (?:an? |o |um |una? |el |the |all )?(?:ai|a\.i\.|agents?|assistants?|llms?|language models?|"
    r"bots?|chatbots?|agentes?|assistentes?|asistentes?|ia)\b"
    r"|\b(?:amend_mandate|update_briefing|list_briefing|search_directory|view_member|log_evidence|my_mandate)\b",
    re.IGNORECASE,
)
LINK = re.compile(
    r"\b(?:https?|ftp|file|data|javascript)\s?:\s?/{0,2}\S+|\bwww\.\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
    r"|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|ai|br|es|co|xyz|info|me|ly|gg|sh|site|online|example|test|"
    r"pt|mx|ar|cl|uk|de|fr|link|click|top|ru|cn|to|cc|tk|design|studio|art|page|store|shop|live|tv)(?:/\S*)?\b"
    r"|\b(?:[a-z0-9-]+\.)+[a-z]{2,}/\S+"
    # written to slip past a link filter: hxxp://, example[dot]com, example (dot) com, "dot com"
    r"|\bhxxps?\b|\[\s*(?:dot|\.|punto|ponto)\s*\]|\(\s*(?:dot|punto|ponto)\s*\)"
    r"|\b(?:dot|ponto|punto)\s+(?:com|net|org|io|br|es|dev|app)\b"
    # contact details: a phone number (7+ digits in groups, optionally +country), a social handle
    r"|(?<![\w$€£¥])\+?\d{1,3}[\s.-]?\(?\d{2,4}\)?[\s.-]?\d{3,5}[\s.-]?\d{3,4}\b"
    r"|(?<![\w@])@[a-z0-9_]{3,}(?:\.[a-z0-9_]+)*\b|\b(?:whatsapp|telegram|signal|wa\.me|t\.me)\b",
    re.IGNORECASE,
)


def instructions(text: str) -> Literal["instructions", "link"] | None:
    """Whether `text` speaks to an agent (instructions, a tool, a secret to send) or carries a link."""
    folded = fold(text)
    if INSTRUCTIONS.search(folded):
        return "instructions"
    if LINK.search(folded):
        return "link"
    return None


Flag = Literal["commitment", "price", "instructions", "link", "invisible", "lookalike"]


def flags(text: str, who: str = "") -> frozenset[Flag]:
    """Everything in `text` a principal should look at twice before an agent repeats it; `who` is
    the principal's handle, read as a subject ("ana books the studio")."""
    found: set[Flag] = set()
    if commits(text, "en", who):
        found.add("commitment")
    if quotes_price(text):
        found.add("price")
    folded = fold(text)
    if INSTRUCTIONS.search(folded):
        found.add("instructions")
    if LINK.search(folded):
        found.add("link")
    if invisible(text):
        found.add("invisible")
    if lookalikes(text):
        found.add("lookalike")
    return frozenset(found)
