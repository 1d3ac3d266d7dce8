"""The words that commit: verbs in every tense, person and voice (`VERBS`), phrases said as a whole
(`PHRASES`) and refusals under a negation (`DOUBLE_NEGATION`), in English, Brazilian Portuguese and
Spanish. Kept apart from what defuses them (`defusing`) and from how a text is read clause by
clause (`commitments`), because this is the vocabulary, the part that grows with each language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from server.answering.text import acc, words

_AR = (
    "o|a|as|am|amos|ei|ou|aram|ava|avam|ara|arei|ará|aremos|arão|arao|aria|ariam|ando|ado|ada|ados|adas|ar|e|em|"
    "emos|asse|é|ó|an|aron|aba|aban|aré|arán|aran|aría|arían|arian|en"
)
_ER = (
    "o|e|es|em|emos|i|eu|eram|ia|iam|era|erei|erá|eremos|erão|erao|eria|endo|ido|ida|idos|idas|er|ió|io|ieron|"
    "erán|eré|ería|iendo|en"
)
_IR = "o|e|es|em|imos|i|iu|iram|ia|iam|ira|irei|irá|iremos|irão|irao|iria|indo|ido|ida|idos|idas|ir|ió|ieron"


@dataclass(frozen=True)
class Verb:
    pattern: re.Pattern[str]
    generic: bool = False  # "accepts commissions": a habit or a policy, not this commitment
    noun_too: bool = False  # "her booking", "a agenda", "la firma": needs a verb position
    only: str | None = None  # a language whose sentences alone it is read in


def _verb(
    forms: str, generic: bool = False, noun_too: bool = False, only: str | None = None
) -> Verb:
    return Verb(re.compile(r"(?<![\w'])(?:" + forms + r")(?![\w'])"), generic, noun_too, only)


def _romance(stem: str, endings: str) -> str:
    return acc(stem) + "(?:" + endings + ")"


_DEAL_OBJECTS = words(
    "negocio",
    "contrato",
    "acordo",
    "trato",
    "proposta",
    "parceria",
    "job",
    "trabalho",
    "projeto",
    "orcamento",
    "valor",
    "data",
    "horario",
    "com voce",
    "com vc",
    "deal",
    "trabajo",
    "proyecto",
    "encargo",
    "presupuesto",
    "servico",
    "freela",
)
_TAKE_OBJECT = (
    r"(?:on )?(?:it|this|that|(?:the|this|that|your|yr|a|an) (?:[\w-]+ )?"
    r"(?:job|project|gig|commission|offer|assignment|contract|booking|role|position|engagement|deal|work|slot))"
)

VERBS: tuple[Verb, ...] = (
    # English
    _verb(r"accept(?:s|ed|ing)?", generic=True),
    _verb(r"agree(?:s|d|ing)?"),
    _verb(r"confirm(?:s|ed|ing)?"),
    _verb(r"book(?:s|ed|ing)?", generic=True, noun_too=True),
    _verb(r"reserv(?:e|es|ed|ing)", generic=True, noun_too=True),
    _verb(r"schedul(?:e|es|ed|ing)", generic=True, noun_too=True),
    _verb(r"sign(?:s|ed|ing)?", generic=True, noun_too=True),
    _verb(r"commit(?:s|ted|ting)?", generic=True, noun_too=True),
    _verb(r"promis(?:e|es|ed|ing)", noun_too=True),
    _verb(r"guarante(?:e|es|ed|eing)", noun_too=True),
    _verb(r"buy|buys|buying|bought", generic=True),
    _verb(r"pay|pays|paying|paid", generic=True, noun_too=True),
    _verb(r"hir(?:e|es|ed|ing)", generic=True, noun_too=True),
    _verb(r"arrang(?:e|es|ed|ing)", generic=True),
    _verb(r"(?:take|takes|taking|took|taken) " + _TAKE_OBJECT),
    _verb(
        r"lock(?:s|ed)? (?:it |this |that |you |her |him )?in|pencil(?:s|led|ed)? (?:it |you |her |him )?in"
    ),
    _verb(r"set (?:it |this |that )?up|clos(?:e|es|ed|ing) the deal|seal(?:s|ed)? the deal"),
    # Portuguese and Spanish (shared stems read both)
    _verb(_romance("aceit", _AR) + "|" + _romance("acept", _AR), generic=True),
    _verb(_romance("concord", _AR)),
    _verb(_romance("confirm", _AR)),
    _verb(_romance("reserv", _AR), generic=True, noun_too=True),
    _verb(_romance("agend", _AR), generic=True, noun_too=True),
    _verb(_romance("marc", _AR), generic=True, noun_too=True),
    _verb(
        _romance("program", "ado|ada|ados|adas|ei|ou|é|ó|amos|aremos|arei|aré|ará"), noun_too=True
    ),
    _verb(_romance("assin", _AR) + "|" + _romance("firm", _AR), generic=True, noun_too=True),
    _verb(_romance("compromet", _ER), generic=True),
    _verb(_romance("promet", _ER)),
    _verb(_romance("garant", _IR) + "|" + _romance("garantiz", _AR), noun_too=True),
    _verb(_romance("compr", _AR), generic=True, noun_too=True),
    _verb(_romance("pag", _AR), generic=True, noun_too=True),
    _verb(_romance("contrat", _AR), generic=True, noun_too=True),
    _verb(_romance("top", _AR), noun_too=True),
    _verb(_romance("combin", "amos|ei|ou|aram|é|ó|aron|ado|ada"), noun_too=True),
    _verb(_romance("acord", "amos|ado|ada|ó|aron|é|ará|aremos"), only="es"),
    _verb(
        _romance("fech", _AR)
        + r"(?: (?:o|a|um|uma|este|esse|nosso|seu|sua|el|la|un|una))? "
        + _DEAL_OBJECTS
    ),
    _verb(_romance("cerr", _AR) + r" (?:el |un )?(?:trato|acuerdo|negocio)"),
    _verb(
        r"(?:peg|tom|assum)(?:a|o|ou|ó|ará|ar|arei|aré|e|iu|irá|ir) (?:o|a|el|la|esse|este|ese|seu|sua|tu) "
        r"(?:trabalho|job|projeto|servico|serviço|freela|trabajo|proyecto|encargo)"
    ),
)

# Said as a whole: a commitment whatever verb is around it; only a negation, a question or a
# hypothesis in the same clause defuses them.
DAY = words(
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "tomorrow",
    "tonight",
    "segunda",
    "terca",
    "quarta",
    "quinta",
    "sexta",
    "sabado",
    "domingo",
    "amanha",
    "lunes",
    "martes",
    "miercoles",
    "jueves",
    "viernes",
    "manana",
)
_TIME = r"(?:\d{1,2}(?:[:h.]\d{2})?\s?(?:am|pm|h|hs|horas?)?)"
PHRASES = re.compile(
    "|".join(
        [
            r"^(?:deal|done|agreed|confirmed|booked|sorted|all set|sounds (?:good|great|perfect)|you'?re on)$",
            r"^(?:deal|done)\b(?! (?:with|for|by)\b)",
            r"\b(?:it'?s|it is|that'?s|that is) a deal\b",
            r"\b(?:you|we|you'?ve|we'?ve) (?:have |got |have got )?(?:a|yourself a) deal\b",
            (
                r"\b(?:done deal|deal done|consider it done|count (?:me|us|her|him) in|you can count"
                r" on (?:her|him|me|us))\b"
            ),
            r"\bsee you\b(?: (?:on|this|next|at|then|there|soon))?",
            r"\b(?:will|'ll|shall) be there\b",
            r"\b(?:you'?re|you are) (?:booked|confirmed|all set|hired)\b",
            r"^you'?re (?:in|on)$",
            r"\b"
            + DAY
            + r"(?: at "
            + _TIME
            + r")? (?:works|is fine|is good|is perfect|suits|it is|then)\b",
            r"\b(?:that|this|it) (?:works|suits) for (?:her|him|me|us|you)\b",
            r"\bworks for (?:her|him|me|us)\b",
            r"\b(?:let'?s|lets) (?:do it|go with|go ahead|lock)\b",
            (
                r"\b(?:[\w]+'s|she is|he is|i'?m|i am|we'?re|we are|they'?re) (?:in|all set|good to"
                r" go)$|\b(?:all set|good to go) for\b"
            ),
            (
                r"\b(?:slot|date|time|spot|job|gig|room|place|seat|table|booking|commission|project"
                r"|it|that|this)(?:'s| is) yours\b"
            ),
            r"\b(?:é|e) (?:sua|seu|de vocês|de voces)$|\bes (?:tuy[oa]|suy[oa])$",
            r"\b(?:says?|said|saying) yes\b|\b(?:diz|disse|dizendo|falou|respondeu) sim\b"
            r"|\b(?:dice|dijo|diciendo) (?:que )?sí\b"
            r"|\b(?:dice|dijo) que si(?= a\b|$)",
            r"\b(?:go ahead|on board)\b",
            r"^(?:ok|okay|sure|great|perfect|perfeito|otimo|ótimo|certo|claro|vale|dale|beleza|perfecto|genial)[ ,!]+"
            + DAY
            + r"\b",
            r"\b"
            + DAY
            + r" (?:(?:at|às|as|a las|a la) )?"
            + _TIME
            + r" (?:then|então|entao|entonces)\b",
            # Portuguese
            r"^(?:fechado|feito|combinado|topado|fechou|negócio fechado|negocio fechado)$",
            r"\b(?:negócio|negocio) fechado\b",
            r"\b(?:tá|ta|está|esta|fica|ficou) (?:fechado|combinado|marcad[oa]|feito)\b(?!\s\w)",
            r"\b(?:tá|ta|está|esta|fica|ficou) combinado\b",
            r"\bpode (?:deixar|contar com|considerar feito)\b",
            r"\bconte com\b",
            r"\bconsidere(?:-o)? feito\b",
            r"\b(?:sim|claro),? (?:eu )?(?:aceito|topo|concordo|confirmo)\b",
            r"\bde acordo\b(?! (?:com|a|ao)\b)",
            r"\b(?:nos vemos|te vejo|a gente se vê|a gente se ve)\b",
            (
                r"\b(?:vai estar|estará|estara|estarei|vou estar|estaré|estare|va a estar|voy a"
                r" estar) (?:lá|la|aí|ai|allí|alli|ahí|ahi|allá|alla)\b"
            ),
            r"\b(?:está|esta|estou|estamos|tá|ta|fica|ficou|estão|estao) de acordo\b",
            r"^(?:até|ate) " + DAY + r"!?$",
            (
                r"\b(?:reserva|agendamento|marcação|marcacao|reunião|reuniao|horário|horario)"
                r" (?:feita|feito|hecha|hecho|confirmad[oa]|garantid[oa])\b"
            ),
            # Spanish
            r"^(?:hecho|trato hecho|cerrado|vale|de acuerdo|perfecto|listo)$",
            r"\btrato (?:hecho|cerrado)\b",
            r"\b(?:dalo|dalo|considéralo|consideralo|considérelo|considerelo) (?:por )?hecho\b",
            r"\b(?:eso )?está hecho\b",
            r"\bde acuerdo\b(?! (?:con|a|al|en que)\b)",
            r"\b(?:está|esta|estoy|estamos|están|estan) de acuerdo\b(?! en que)",
            r"\b(?:cuenta|cuente|puedes contar|puede contar) con\b",
            r"\bnos vemos\b",
            r"\bte veo\b",
            r"^hasta (?:el )?" + DAY + r"!?$",
            r"\bqueda (?:confirmad[oa]|reservad[oa]|agendad[oa]|cerrad[oa]|acordad[oa]|hecho)\b",
        ]
    )
)

# A refusal under a negation is an acceptance: "can't say no", "não pode recusar", "no puede rechazar".
DOUBLE_NEGATION = re.compile(
    r"\b(?:can'?t|cannot|won'?t|couldn'?t|wouldn'?t|will not|could not|would not) (?:\w+ )?"
    r"(?:say no|refuse|decline|turn (?:it |this |that )?down)\b"
    r"|\b(?:não|nao) (?:\w+ )?(?:recus\w*|diz(?:er)? (?:não|nao)|neg(?:a|ar|aria|ará|o))\b"
    r"|\bno (?:\w+ )?(?:rechaz\w*|dir\w* que no|decir que no|se (?:puede )?negar|negar\w*)\b"
)
