"""What defuses a commitment word in its clause: a negation in scope, a hypothesis, the decision
left to the member, a habit, a generic object ("accepts commissions"), a noun use ("her booking"),
an explicitly past time ("in 2019"), or a set phrase that only looks like one ("fully booked").
Each is a reading of the words around the one found (`defused`); kept apart from the words
themselves (`commitment_words`) because these rules are about position, not vocabulary.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from server.answering.commitment_words import DAY, Verb

# Words that put what follows out of the member's mouth until the clause ends.
_NEGATIONS = set(
    "not never cannot neither nor nothing nobody none unable without refuses refused declines "
    "declined não nao nunca jamais nem nada ninguém ninguem sem ni tampoco nadie sin jamás".split()
)
_NOT_NEGATIONS = re.compile(
    r"\b(?:no (?:problem|worries|doubt)|sem problemas?|(?:não|nao) tem problema|"
    r"no hay problema|sin problema|sin duda|sem dúvida|sem duvida|not only)\b"
)
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
# Before a verb form that is also a noun, what makes it the verb: "is booked", "está marcada", "ha firmado".
_COPULAS = set(
    "is are am was were be been 'm 're i'm you're está esta estou estamos fica ficou foi é es fue queda "
    "estoy están estan son são sao ha has have had tem tenho hemos he".split()
)
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


@dataclass(frozen=True)
class Clause:
    text: str
    negated_before: (
        bool  # a negation carried in from an enumeration: "cannot agree, accept, book or …"
    )
    language: str


def negated(prefix: str, language: str) -> bool:
    prefix = _NOT_NEGATIONS.sub(" ", prefix)
    for word in re.findall(r"[\w']+", prefix):
        if word in _NEGATIONS or word.endswith("n't"):
            return True
        if word == "no" and language != "pt":  # Portuguese "no" is "in the"
            return True
    return False


def phrase_defused(clause: Clause, start: int) -> bool:
    """A phrase said as a whole (`PHRASES`) is defused only by a negation before it or a hypothesis."""
    return (
        clause.negated_before
        or bool(_CONDITIONAL_START.search(clause.text))
        or negated(clause.text[:start], clause.language)
    )


def defused(clause: Clause, start: int, end: int, verb: Verb, who: str) -> bool:
    """Whether the commitment word `verb` found at `text[start:end]` commits nobody, read from the
    words around it; `who` is the member's handle, read as a subject."""
    text = clause.text
    prefix, suffix, form = text[:start], text[end:], text[start:end]
    first_word = form.split()[0]
    return (
        _not_said(clause, prefix, who)
        or (_HABITUAL.search(prefix) is not None and not _PAST_FORM.search(first_word))
        or _inside_excluded(text, start, end)
        or (verb.noun_too and _noun_use(prefix, first_word, who))
        or (verb.generic and not _SECOND_PERSON.search(text) and _generic_object(suffix))
        or _past_event(text, first_word)
    )


def _not_said(clause: Clause, prefix: str, who: str) -> bool:
    """Negated, hypothetical, left to the member, or something only she can do in person."""
    text = clause.text
    if clause.negated_before or negated(prefix, clause.language):
        return True
    if _CONDITIONAL_START.search(text) or _DEFERRAL.search(prefix):
        return True
    if who and re.search(_ONLY + re.escape(who) + r"\b", prefix):
        return True  # "only Ana can accept"
    return bool(_IN_PERSON.search(text) and _MODAL_NEED.search(prefix))


def _inside_excluded(text: str, start: int, end: int) -> bool:
    """The word begins or ends inside a set phrase that commits nobody ("fully booked")."""
    return any(
        excluded.start() <= start < excluded.end() or excluded.start() <= end - 1 < excluded.end()
        for excluded in _EXCLUDED.finditer(text)
    )


def _previous(prefix: str) -> tuple[str, str]:
    words = re.findall(r"[\w']+", prefix)
    return (words[-1] if words else "", words[-2] if len(words) > 1 else "")


def _noun_use(prefix: str, first_word: str, who: str) -> bool:
    """A word that is also a noun ("booking", "agenda", "firma") read as one: after a determiner or
    a possessive, or in its base form where no subject, auxiliary or copula licenses a verb."""
    previous, before = _previous(prefix)
    base = not _PAST_FORM.search(first_word)
    # "va a firmar": the "a" of a periphrastic future before an infinitive is no article
    going_to = previous == "a" and before in _GOING_TO and first_word.endswith(("ar", "er", "ir"))
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
        or previous in _COPULAS
    )
    return base and not licensed


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
    if re.fullmatch(DAY, head) or head.endswith(("ing", "ndo")):
        return False
    return True


def _past_event(text: str, first_word: str) -> bool:
    """Said in a past tense with an explicitly past time ("signed with them in 2019"), and not to you."""
    past = bool(_PAST_FORM.search(first_word)) or first_word in ("bought", "paid", "took", "taken")
    if not past or _SECOND_PERSON.search(text):
        return False
    marker = _PAST_TIME.search(text)
    return marker is not None and all(
        int(y) < _THIS_YEAR for y in re.findall(r"(?:19|20)\d\d", marker.group())
    )
