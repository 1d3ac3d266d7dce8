"""Commitments: an answer that accepts, agrees, confirms, books, reserves, schedules, signs,
commits, promises, guarantees, buys, pays or hires for someone, in English, Brazilian Portuguese or
Spanish, in any tense, person or voice. What defuses a commitment word is listed in `_defused`:
a negation in scope, a question, a hypothesis, the decision left to the member, a generic object
("accepts commissions"), an explicitly past time ("in 2019"), a noun use ("her booking").
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass

from server.answering.text import acc, fold, language_of, sentences, words

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
class _Verb:
    pattern: re.Pattern[str]
    generic: bool = False  # "accepts commissions": a habit or a policy, not this commitment
    noun_too: bool = False  # "her booking", "a agenda", "la firma": needs a verb position
    only: str | None = None  # a language whose sentences alone it is read in


def _verb(
    forms: str, generic: bool = False, noun_too: bool = False, only: str | None = None
) -> _Verb:
    return _Verb(re.compile(r"(?<![\w'])(?:" + forms + r")(?![\w'])"), generic, noun_too, only)


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

VERBS: tuple[_Verb, ...] = (
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
_DAY = words(
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
            + _DAY
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
            + _DAY
            + r"\b",
            r"\b"
            + _DAY
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
            r"^(?:até|ate) " + _DAY + r"!?$",
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
            r"^hasta (?:el )?" + _DAY + r"!?$",
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

# Words that put what follows out of the member's mouth until the clause ends.
_NEGATIONS = set(
    "not never cannot neither nor nothing nobody none unable without refuses refused declines "
    "declined não nao nunca jamais nem nada ninguém ninguem sem ni tampoco nadie sin jamás".split()
)
_NOT_NEGATIONS = re.compile(
    r"\b(?:no (?:problem|worries|doubt)|sem problemas?|(?:não|nao) tem problema|"
    r"no hay problema|sin problema|sin duda|sem dúvida|sem duvida|not only)\b"
)
_ENUMERATION = re.compile(r"\b(?:or|nor|ou|nem|ni)\b")
_STRONG_BREAK = re.compile(
    r"\s*[;:()\"]\s*|\s+-\s+|\b(?:but|however|yet|although|though|whereas|mas|porém|porem|contudo|entretanto|"
    r"todavia|embora|pero|aunque|sino|sin embargo)\b"
)
_WEAK_BREAK = re.compile(r"\s+\b(?:and|e|y|so|then|então|entao|entonces|luego)\b\s+")

_DETERMINERS = set(
    "a an the her his my your our their its this that these those every each any some no "
    "o os as um uma uns umas seu sua seus suas meu minha nosso nossa esse essa este esta isso isto "
    "do da dos das no na nos nas ao à pelo pela "
    "el la los las un una unos unas mi tu su sus nuestro nuestra ese esa este esta del al "
    "de".split()
)
_SUBJECTS = set(
    "i we she he they it that this who which i'll she'll he'll we'll they'll i'd she'd he'd we'd "
    "eu ela ele nós nos eles elas yo ella él el nosotros ellos ellas usted me te se lhe le les lhes "
    "also already just gladly happily only usually normally always now still then "
    "já ja também tambem só so sempre agora ya también solo siempre ahora".split()
)
_AUX = set(
    "will 'll would can could shall should must may might to let's lets please "
    "vai vou vamos irá ira iremos pode posso podemos poderia quer quero deve vá "
    "va voy puede puedo podemos podría podria quiere quiero debe".split()
)
_GOING_TO = set(
    "va voy vamos van vas iba iban ibas íbamos ibamos vaya vayan vayas vayamos".split()
)  # ir a + inf.
_CONTRACTED_SUBJECT = re.compile(
    r"(?:i|you|we|they|she|he|who)'(?:s|re|m|ve|d)"
)  # "she's booking": she is
_PARTICLES = set("to up com con".split())  # "committed to open-source", "comprometida com projetos"
_PREPOSITIONS = set(
    "for on at in by with from until till before after about "
    "para em no na nos nas por pelo pela até ate antes depois com "
    "en el al hasta desde antes después despues".split()
)
_POSSESSIVES = set(
    "her his their our my your seus suas sus meus minhas nossos nossas mis tus".split()
)
_GENERIC_SKIP = set(
    "only just new more any other all mostly mainly usually occasionally also "
    "novos novas mais outros outras apenas só so nuevos nuevas más mas otros otras solo "
    "solamente sólo".split()
)
_SPECIFIC = set(
    "it this that them you your yours him friday today tomorrow tonight now next week month day morning "
    "afternoon evening noon weekend próxima proxima próximo proximo semana manhã manha tarde mês mes fim "
    "meeting call session reunião reuniao sessão sessao reunión reunion sesión sesion llamada "
    "isso isto esse essa este esta você voce vc te ti lhe hoje amanhã amanha "
    "eso esto ese esa este esta usted tú tu hoy mañana lo".split()
)
_SECOND_PERSON = re.compile(
    r"\b(?:you|your|yours|você|voce|vc|vcs|vocês|voces|contigo|usted|ustedes|te|ti|tu|tú|tus)\b"
)
_PAST_TIME = re.compile(
    r"\b(?:last (?:year|month|week|season|summer|spring|autumn|fall|winter|time)|years? ago|months? ago|"
    r"\w+ (?:years|months|weeks|days) ago|in the past|back (?:in|then)|previously|once|"
    r"(?:ano|mês|mes|semestre|verão|verao) passad[oa]|semana passada|no passado|anteriormente|há \d+ anos|ha \d+ anos|"
    r"(?:año|mes|verano) pasad[oa]|semana pasada|en el pasado|hace \d+ (?:años|anos|meses)|hace (?:unos|varios) años)\b"
    r"|\b(?:in|em|en|since|desde|during|durante|of|de) (?:\w+ )?(?:19\d\d|20\d\d)\b"
    r"|(?<![\d,.])(?:19\d\d|20\d\d)(?![\d,.])"
)
_THIS_YEAR = datetime.date.today().year
_PAST_FORM = re.compile(
    r"(?:ed|ought|aid|ook|aken|ei|ou|aram|ava|avam|é|ó|aron|aba|aban|eu|eram|iu|iram|ió|ieron|"
    r"ado|ada|ados|adas|ido|ida|idos|idas)$"
)
_PAST_COPULA = re.compile(r"\b(?:was|were|had|foi|foram|fora|era|fue|fueron|había|habia)\b")
_ONLY = (
    r"\b(?:only|so|só|somente|apenas|solo|sólo|solamente|únicamente|unicamente) (?:a |o |el |la )?"
)
_DEFERRAL = re.compile(
    _ONLY + r"(?:she|he|her|him|ela|ele|ella|él|el|member|membro|miembro|the member|o membro)\b"
    r"|\b(?:up to|cabe (?:a|à)|depende d[eoa]|le corresponde|le toca)\b"
    r"|\b(?:ask|asks|contact|write to|check with|pergunte|pergunta|perguntar|fale com|escreva|"
    r"contate|entre em contato|pregunte|pregunta|preguntar|hable con|escriba|contacte|consulte|consulta)\b"
    r"|\b(?:whether|if)\b(?!.*\b(?:then)\b)"
    r"|\b(?:you|você|voce|vc|usted|tú|tu)\b(?: \w+)? (?:can|could|may|might|should|need to|needs to|have to|"
    r"pode|podem|poderia|deve|precisa|tem que|puede|puedes|podría|podria|debe|debes|tiene que|tienes que|necesita)\b"
    r"|\b(?:puedes|podés|tienes que|debes)\b"
    r"|\b(?:decide|decides|decidirá|decide se|decide si|will decide|vai decidir)\b"
    r"|\b(?:se|si) (?:você|voce|vc|ela|ele|a|o|usted|ella|él|el|tu|tú)\b"
)
_IN_PERSON = re.compile(
    r"\b(?:herself|himself|themselves|in person|personally|pessoalmente|em pessoa|ela mesma|"
    r"ele mesmo|ella misma|él mismo|el mismo|en persona|personalmente|directly|diretamente|"
    r"directamente)\b"
)
_MODAL_NEED = re.compile(
    r"\b(?:must|has to|have to|needs? to|would need to|will need to|would have to|should|"
    r"tem que|precisa|precisaria|deve|deveria|terá que|teria que|necesitaría|necesitaria|tiene"
    r" que|debe|necesita|tendrá que|tendría que|"
    r"hay que)\b"
)
_HABITUAL = re.compile(
    r"\b(?:usually|normally|generally|typically|tends? to|often|rarely|seldom|costuma|costumam|"
    r"geralmente|normalmente|em geral|suele|suelen|generalmente|por lo general|habitualmente|"
    r"acostuma)\b"
)
_CONDITIONAL_START = re.compile(
    r"^(?:if|whether|unless|in case|se|caso|a menos que|si|salvo que|en caso de que)\b"
)
_EXCLUDED = re.compile(
    r"\b(?:fully|completely|totally|solidly) booked\b|\bbooked (?:up|out|solid|until|through|till|thru)\b"
    r"|\breserv(?:e|es|ed) the right\b|\bagree(?:s|d)? (?:that|with (?:the|your|this|that) (?:idea|view|point))\b"
    r"|\b(?:concord\w*|coincid\w*) (?:que|en que)\b|\bmarcad[oa]s? (?:por|pel[oa]s?)\b|\bsign(?:s|ed)? (?:up for|in)\b"
    r"|\bschedule (?:is|was|looks|has)\b|\bagenda (?:está|esta|cheia|lotada|llena|completa|apertada)\b"
    r"|\bpromis(?:e|ing) (?:young|talent|newcomer)\b"
    r"|\b(?:mandate|mandato)(?: que| that)? [\w']+ (?:signed|assinou|firmó|firmo)\b"  # the club mandate, a fact
)


_STARTS_VERB = re.compile(r"^(?:" + "|".join(v.pattern.pattern for v in VERBS) + ")")


@dataclass(frozen=True)
class _Clause:
    text: str
    negated_before: (
        bool  # a negation carried in from an enumeration: "cannot agree, accept, book or …"
    )
    language: str


def _clauses(sentence: str) -> Iterable[_Clause]:
    language = language_of(sentence)
    for segment in _STRONG_BREAK.split(sentence):
        parts = [p.strip(" ,.!¡?¿'\"") for p in segment.split(",")]
        enumeration = bool(_ENUMERATION.search(segment))
        carry = False
        for part in parts:
            if not part:
                continue
            pieces = _WEAK_BREAK.split(part)
            for n, piece in enumerate(pieces):
                inherited = carry and n == 0 and bool(_STARTS_VERB.search(piece))
                yield _Clause(piece.strip(), inherited, language)
            last = pieces[-1]
            carry = enumeration and (
                _negated(last, language) or (carry and bool(_STARTS_VERB.search(last)))
            )


def _negated(prefix: str, language: str) -> bool:
    prefix = _NOT_NEGATIONS.sub(" ", prefix)
    for word in re.findall(r"[\w']+", prefix):
        if word in _NEGATIONS or word.endswith("n't"):
            return True
        if word == "no" and language != "pt":  # Portuguese "no" is "in the"
            return True
    return False


def _previous(prefix: str) -> tuple[str, str]:
    words = re.findall(r"[\w']+", prefix)
    return (words[-1] if words else "", words[-2] if len(words) > 1 else "")


def _generic_object(suffix: str) -> bool:
    """What follows the verb is a bare noun ("commissions", "new work", "encomendas"), not this thing."""
    words = re.findall(r"[\w']+", suffix)
    while words and (
        words[0] in _PARTICLES or words[0] in _GENERIC_SKIP or words[0].endswith("ly")
    ):
        words = words[1:]
    if not words:
        return False  # "Ana accepts.": intransitive, it commits
    head = words[0]
    if (
        (head in _POSSESSIVES or head.endswith("'s"))
        and len(words) > 1
        and words[1].endswith("s")
        and not words[1].endswith("'s")
    ):
        return True  # "signs her contracts in person": a habit
    if head in ("no", "nenhum", "nenhuma", "ningún", "ningun", "ninguna", "zero"):
        return True  # "has booked no new clients": nothing is committed
    if head.endswith("'s") or head in _PREPOSITIONS:
        return False  # no object, so this very thing: "scheduled for tomorrow", "on Ana's behalf"
    if head in _DETERMINERS or head in _SPECIFIC or head in _SUBJECTS or head.isdigit():
        return False
    if re.fullmatch(_DAY, head) or head.endswith(("ing", "ndo")):
        return False
    return True


def _defused(clause: _Clause, start: int, end: int, verb: _Verb, who: str) -> bool:
    text = clause.text
    prefix, suffix, form = text[:start], text[end:], text[start:end]
    if clause.negated_before or _negated(prefix, clause.language):
        return True
    if _CONDITIONAL_START.search(text) or _DEFERRAL.search(prefix):
        return True
    if who and re.search(_ONLY + re.escape(who) + r"\b", prefix):
        return True  # "only Ana can accept"
    if _IN_PERSON.search(text) and _MODAL_NEED.search(prefix):
        return True
    if _HABITUAL.search(prefix) and not _PAST_FORM.search(form.split()[0]):
        return True  # "Ana usually confirms in writing": how she works, not this commitment
    for excluded in _EXCLUDED.finditer(text):
        if (
            excluded.start() <= start < excluded.end()
            or excluded.start() <= end - 1 < excluded.end()
        ):
            return True
    previous, before = _previous(prefix)
    if verb.noun_too:
        first_word = form.split()[0]
        base = not _PAST_FORM.search(first_word)
        # "va a firmar": the "a" of a periphrastic future before an infinitive is no article
        going_to = (
            previous == "a" and before in _GOING_TO and first_word.endswith(("ar", "er", "ir"))
        )
        if not going_to and (
            previous in _DETERMINERS
            or base
            and previous.endswith("'s")
            and previous not in ("it's", "that's", "she's", "he's")
        ):
            return True  # "her booking", "Ana's schedule", "a agenda", "la firma" (but "Ana's booked you in")
        licensed = (
            not prefix.strip()
            or previous in _SUBJECTS
            or previous in _AUX
            or previous == who
            or going_to
            or _CONTRACTED_SUBJECT.fullmatch(previous) is not None
            or previous.endswith("'ll")
            or previous
            in (
                "is",
                "are",
                "am",
                "was",
                "were",
                "be",
                "been",
                "'m",
                "'re",
                "i'm",
                "you're",
                "está",
                "esta",
                "estou",
                "estamos",
                "fica",
                "ficou",
                "foi",
                "é",
                "es",
                "fue",
                "queda",
                "estoy",
                "están",
                "estan",
                "son",
                "são",
                "sao",
                "ha",
                "has",
                "have",
                "had",
                "tem",
                "tenho",
                "hemos",
                "he",
            )
        )
        if base and not licensed:
            return True
    if verb.generic and not _SECOND_PERSON.search(text) and _generic_object(suffix):
        return True
    past = bool(_PAST_FORM.search(form.split()[0])) or form.split()[0] in (
        "bought",
        "paid",
        "took",
        "taken",
    )
    if past and not _SECOND_PERSON.search(text):
        marker = _PAST_TIME.search(text)
        if marker and all(
            int(y) < _THIS_YEAR for y in re.findall(r"(?:19|20)\d\d", marker.group())
        ):
            return True
    return False


def commits(text: str, language: str = "en", who: str = "") -> bool:
    """Whether `text` commits someone, in English, Portuguese or Spanish, whatever `language` says.

    `who` is the member's handle, read as a subject ("ana books the studio")."""
    who = fold(who)
    for sentence in sentences(text):
        if sentence.endswith("?") or sentence.startswith("¿"):
            continue  # a question commits nobody
        if DOUBLE_NEGATION.search(sentence):
            return True
        for clause in _clauses(sentence):
            if not clause.text:
                continue
            conditional = bool(_CONDITIONAL_START.search(clause.text))
            for phrase in PHRASES.finditer(clause.text):
                if not (
                    clause.negated_before
                    or conditional
                    or _negated(clause.text[: phrase.start()], clause.language)
                ):
                    return True
            for verb in VERBS:
                if verb.only and verb.only != clause.language:
                    continue
                for found in verb.pattern.finditer(clause.text):
                    if not _defused(clause, found.start(), found.end(), verb, who):
                        return True
    return False
