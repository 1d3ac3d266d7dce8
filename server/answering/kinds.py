"""What kind of answer a question asks for, and whether a note holds that kind: a third opinion for
the matcher, made of the question's own form rather than its subject.

"When can I expect Ana to get back to me?" shares no subject word with "Respondo mensagens em dias
úteis, das 10h às 18h", but it asks *when*, and of the notes the words point at, only that one says a
time. A question asking when or how long is answered by a time (hours, days of the week, a day, a
week, a month, a year); one asking how much or how many, by a number. The cues are the
interrogatives of English and Brazilian Portuguese, the content kinds are forms any note of any
member may hold: neither names a member, a note or a phrasing of the corpus.

Who and where were measured too (a capitalised name, a capitalised place after a preposition) and
left out: folded text has no capitals, and on the paraphrase corpus's tuning two-thirds they decided
nothing the other two did not.
"""

from __future__ import annotations

import re
from functools import lru_cache

from server.answering.normalised import normalise

_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|dozen|hundred|thousand|"
    "um|uma|dois|duas|tres|quatro|cinco|seis|sete|oito|nove|dez|duzia|cem|mil"
)
_TIME_WORDS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|"
    "segundas?|tercas?|quartas?|quintas?|sextas?|sabados?|domingos?|uteis|"
    "days?|dias?|weeks?|semanas?|months?|mes|meses|years?|anos?|hours?|horas?|"
    "since|desde|morning|manha|afternoon|tarde|night|noite"
)

# (what a question asks, in its folded text) -> (what a note answering it holds, in its folded text)
KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "time": (
        re.compile(
            r"\b(when|what time|how long|how soon|quando|que horas|quanto tempo|"
            r"a que horas|em quanto tempo)\b"
        ),
        re.compile(rf"\d+ ?h\b|\b\d{{1,2}}:\d\d\b|\b(19|20)\d\d\b|\b({_TIME_WORDS})\b"),
    ),
    "quantity": (
        re.compile(r"\b(how much|how many|quanto|quanta|quantos|quantas)\b"),
        re.compile(rf"\d|\b({_NUMBER_WORDS})\b"),
    ),
}
# the interrogatives that ask for something else: the first interrogative of a question decides, so
# "what does she do when she is not working" asks what, not when
OTHER = re.compile(
    r"\b(what|which|who|whom|whose|where|why|how|que|qual|quais|quem|onde|aonde|"
    r"porque|como)\b"
)


def asked(question: str) -> str | None:
    """The kind of answer the question asks for (its first interrogative's), or None."""
    folded = normalise(question)
    found = [(cue.search(folded), kind) for kind, (cue, _) in KINDS.items()]
    found.append((OTHER.search(folded), ""))
    present = sorted((match.start(), -len(match.group()), kind) for match, kind in found if match)
    # at one place, the longer interrogative ("quanto tempo", "how long") decides
    return (present[0][2] or None) if present else None


def is_open(question: str) -> bool:
    """Whether the question asks for a value (it has an interrogative: what, which, where, how long,
    qual, onde, quanto...) rather than for a yes or a no. An open question names what it wants to
    know ("which country does he live in?"): a note on that subject answers it whatever it says. A
    yes-or-no question names a value ("has he lived in the US?"): a note on the subject may still
    not answer it (it says Lisbon). Portuguese "que" also joins clauses; such a question counts as
    open."""
    folded = normalise(question)
    return OTHER.search(folded) is not None or any(
        cue.search(folded) is not None for cue, _ in KINDS.values()
    )


@lru_cache(maxsize=4096)
def holds(kind: str, text: str) -> bool:
    """Whether a note's text holds an answer of that kind."""
    return KINDS[kind][1].search(normalise(text)) is not None


_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "janeiro|fevereiro|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro"
)
_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|"
    "segundas?|tercas?|quartas?|quintas?|sextas?|sabados?|domingos?|uteis|fins? de semana"
)
# a narrower kind a question may name outright (what year, which month, what time of day, which day of
# the week): a note that holds no answer of that kind does not answer it, whatever its subject ("what
# month are her holidays?" and a note on something she does monthly; "what year?" and a note that
# names a month). (the question's cue, what an answer holds)
NARROW: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "year": (
        re.compile(r"\b(what|which|que|qual|em que) (year|ano)\b|\bdesde que ano\b"),
        re.compile(r"\b(19|20)\d\d\b"),
    ),
    "month": (
        re.compile(r"\b(what|which|que|qual|em que) (month|mes)\b"),
        re.compile(rf"\b({_MONTHS})\b"),
    ),
    "clock": (
        re.compile(r"\b(what time|at what time|que horas|a que horas|que horario)\b"),
        re.compile(
            r"\d+ ?h\b|\b\d{1,2}(:\d\d)? ?(am|pm)\b|\b\d{1,2}:\d\d\b|"
            r"\b(manha|tarde|noite|morning|afternoon|evening|night)\b"
        ),
    ),
    "weekday": (
        re.compile(r"\b(what|which|que|qual|em que) (day|days|dia|dias)\b"),
        re.compile(rf"\b({_WEEKDAYS})\b"),
    ),
    # an amount of money ("how much does he charge for a podcast episode?" and the note on his
    # podcasts, which names no price): answered only by a note that names one, or says it is free
    "price": (
        re.compile(
            r"\b(how much|quanto|quanta)\b.*\b(cost|costs|charge|charges|price|fee|fees|"
            r"custa|custam|cobra|cobram|preco|valor)\b|\bhow much (is|are|for)\b|"
            r"\b(what s|whats|what is|qual e|qual) (the |o )?(price|cost|fee|preco|valor)\b|"
            r"\bwhat (would|does|do|will)\b.*\bcost\b"
        ),
        re.compile(r"[$€£]|\b(reais|dollars?|euros?|free|gratis|gratuit[oa]s?|de graca)\b"),
    ),
    # where to find or reach someone, as a value of its own form (round c46: "what's the address of
    # Espaço Maré?" and the note saying her classes are at Espaço Maré, in Rio Vermelho): a street
    # with its number or a postcode; a telephone number; an e-mail address
    "address": (
        re.compile(
            r"\b(address|addresses|endereco|enderecos)\b|\b(what|which|que|qual) (street|rua)\b"
        ),
        re.compile(
            r"\b(rua|avenida|av|alameda|travessa|rodovia|estrada|praca)\b\.? [a-z ]{1,40},? "
            r"(n ?o? ?)?\d|\b\d{5}-\d{3}\b|\b\d+ [a-z]+ (street|st|avenue|ave|road|rd|lane)\b"
        ),
    ),
    "phone": (
        re.compile(
            r"\b(phone|telephone|cell|mobile|whatsapp|telefone|celular|zap) (number|numero)\b|"
            r"\b(numero|number) (de |do |of )?(her |his |dela |dele )?"
            r"(phone|telephone|cell|mobile|whatsapp|telefone|celular|zap)\b"
        ),
        re.compile(r"\+?\d[\d ().-]{7,20}\d"),
    ),
    "email": (
        re.compile(
            r"\be[ -]?mail (address|endereco)\b|\b(what|whats|which|qual|quais)\b.{0,12}\be[ -]?mail\b"
        ),
        re.compile(r"[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24}\b"),
    ),
}


@lru_cache(maxsize=4096)
def narrow(question: str) -> str | None:
    """The narrow kind the question names outright (`NARROW`), or None."""
    folded = normalise(question)
    return next((kind for kind, (cue, _) in NARROW.items() if cue.search(folded)), None)


@lru_cache(maxsize=4096)
def holds_narrow(kind: str, text: str) -> bool:
    """Whether a note's text holds an answer of that narrow kind."""
    return NARROW[kind][1].search(normalise(text)) is not None
