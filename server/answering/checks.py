"""What the trusted side checks on every answer, whoever produced it, and on the notes it hands over.

Pure functions over text, no I/O. They read English, Brazilian Portuguese and Spanish whatever
language was asked for, because a model answers in whatever language it likes.

- `commits(text)`: the answer accepts, agrees, confirms, books, reserves, schedules, signs, commits,
  promises, guarantees, buys, pays or hires for someone, or says "deal", "done", "see you Friday",
  "fechado", "combinado", "trato hecho" … in any tense, person or voice.
- `quotes_price(text)`: an amount of money in any currency or notation, a rate ("900/day"), or a
  price word next to a bare number ("Ana cobra 500").
- `instructions(text)`: text that speaks to an agent (ignore previous instructions, call a tool,
  send a token somewhere, you are now …) or carries a link.
- `screen_notes(notes)`: the member's notes minus those that read as instructions or carry a link,
  and the ones held back, before anything is handed to an answerer.
- `check_output(answer, language, withheld, who, flagged=())`: all of the above plus "no withheld
  note repeated" (six words of it in a row, or all of a shorter one); an answer that fails is
  withheld and the question escalates.

The rules prefer withholding when unsure: a commitment delivered is the failure, a harmless answer
withheld merely reaches the member's queue. What defuses a commitment word is listed in `_defused`:
a negation in scope, a question, a hypothesis, the decision left to the member, a generic object
("accepts commissions"), an explicitly past time ("in 2019"), a noun use ("her booking").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from server.answering.commitments import commits
from server.answering.contract import Answer, Escalation, Note
from server.answering.prices import quotes_price
from server.answering.text import fold

log = logging.getLogger("parley.answering.checks")

Problem = Literal["commitment", "price", "instructions", "link", "leak"]


# --- instructions and links ---------------------------------------------------------------------

INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip|ignora|ignorar|esqueca|esqueça|esquece|desconsidere|"
    r"desconsidera|olvida|olvide|omite|descarta)\b.{0,60}\b(?:instructions?|rules|prompts?|guidelines|mandate|"
    r"directions|orders|instrucoes|instruções|instrucao|instrução|regras|orientacoes|orientações|mandato|"
    r"instrucciones|reglas|indicaciones|ordenes|órdenes)\b"
    r"|\b(?:system prompt|developer mode|jailbreak|you are now|you're now|from now on,? you|act as|pretend (?:to be|you)|"
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
    r"|\b(?:if you are|if you're|to any|attention|note to|dear|hey|atenção|atencao|aviso (?:ao|para o)|si eres|atención|"
    r"atencion)\b,? (?:an? |o |um |una? |el |the |all )?(?:ai|a\.i\.|agents?|assistants?|llms?|language models?|"
    r"bots?|chatbots?|agentes?|assistentes?|asistentes?|ia)\b"
    r"|\b(?:amend_mandate|update_briefing|list_briefing|search_directory|view_member|log_evidence|my_mandate)\b",
    re.IGNORECASE,
)
LINK = re.compile(
    r"\b(?:https?|ftp|file|data|javascript)\s?:\s?/{0,2}\S+|\bwww\.\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
    r"|\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|ai|br|es|co|xyz|info|me|ly|gg|sh|site|online|example|test|"
    r"pt|mx|ar|cl|uk|de|fr|link|click|top|ru|cn|to|cc|tk|design|studio|art|page|store|shop|live|tv)(?:/\S*)?\b"
    r"|\b(?:[a-z0-9-]+\.)+[a-z]{2,}/\S+",
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


@dataclass(frozen=True)
class Flagged:
    note: Note
    reason: Literal["instructions", "link"]


@dataclass(frozen=True)
class Screening:
    notes: list[Note]  # what the answerer is handed
    flagged: tuple[Flagged, ...]  # what was held back, and why

    @property
    def withheld(self) -> list[str]:
        return [f.note.text for f in self.flagged]


def screen_notes(notes: Sequence[Note]) -> Screening:
    """The notes an answerer may be handed: a note that reads as instructions to an agent, or that
    carries a link, is held back, not relayed as the member's words.

    Held back rather than wrapped as quoted data: a model does not reliably keep delimited text
    inert, and the deterministic answerer composes notes verbatim, so a wrapped note would either
    steer the model or be withheld at the output check anyway. Dropping it at the source means no
    answerer ever reads it; `check_output(flagged=…)` then treats its text as withheld and marks the
    answer, and the caller can log or show the member which notes were held back and why."""
    kept, flagged = [], []
    for note in notes:
        reason = instructions(f"{note.topic}: {note.text}")
        if reason is None:
            kept.append(note)
        else:
            flagged.append(Flagged(note, reason))
    return Screening(kept, tuple(flagged))


# --- the check on every answer -------------------------------------------------------------------

LEAK_WORDS = 6  # this many words of a withheld note in a row are a leak, or the whole of a shorter note


def shingles(text: str, size: int = LEAK_WORDS) -> set[str]:
    words = re.findall(r"[a-z0-9]+", fold(text))
    return {" ".join(words[i:i + size]) for i in range(max(0, len(words) - size + 1))}


def leaks(text: str, withheld: Iterable[str]) -> bool:
    """Whether `text` repeats LEAK_WORDS words in a row of a withheld note, or all of a note that has
    fewer ("Ana is pregnant."): a short note is no less private for being short."""
    said: dict[int, set[str]] = {}
    for note in withheld:
        size = min(LEAK_WORDS, len(re.findall(r"[a-z0-9]+", fold(note))))
        if size and shingles(note, size) & said.setdefault(size, shingles(text, size)):
            return True
    return False


def problem(text: str, language: str = "en", who: str = "", withheld: Iterable[str] = ()) -> Problem | None:
    """The first thing wrong with `text` as findings to deliver, or None."""
    if commits(text, language, who):
        return "commitment"
    if quotes_price(text):
        return "price"
    reason = instructions(text)
    if reason is not None:
        return reason
    if leaks(text, withheld):
        return "leak"
    return None


HELD_BACK = {
    "en": "({n} of {who}'s notes held back: a link or instructions are not relayed; ask {who} in person.)",
    "pt-BR": "({n} nota(s) de {who} retida(s): links e instruções não são repassados; pergunte a {who} pessoalmente.)",
}


def check_output(answer: Answer, language: str, withheld: list[str], who: str,
                 flagged: Sequence[Flagged] = ()) -> Answer:
    """Every answer passes here whoever produced it, before it is delivered or recorded.

    An answer that commits the member or quotes a price escalates as "commitment"; one that
    carries instructions or a link, or repeats a note the mandate does not reveal (or one that
    `screen_notes` held back), escalates as "outside_mandate". Findings are withheld either way and
    the question goes to the member. An answer that stands after notes were held back says so."""
    if answer.escalate is not None or answer.refused is not None:
        return answer
    findings = answer.findings or ""
    found = problem(findings, language, who, [*withheld, *(f.note.text for f in flagged)])
    if found is not None:
        log.warning("answer for %s withheld: %s", who, {
            "commitment": "it read as a commitment", "price": "it quoted a price",
            "instructions": "it carried instructions to an agent", "link": "it carried a link",
            "leak": "it repeated a note its mandate does not reveal"}[found])
        reason: Escalation = "commitment" if found in ("commitment", "price") else "outside_mandate"
        return Answer(answered=False, scopedRequest=answer.scopedRequest, openQuestions=[answer.scopedRequest],
                      findings=None, escalate=reason)
    if flagged and findings:
        log.warning("notes of %s held back from the answerer: %s", who,
                    ", ".join(f"{f.note.topic} ({f.reason})" for f in flagged))
        notice = HELD_BACK.get(language, HELD_BACK["en"]).format(n=len(flagged), who=who)
        return answer.model_copy(update={"findings": f"{findings} {notice}"})
    return answer
