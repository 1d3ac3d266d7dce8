"""The words' ranking of a member's notes for a question: BM25 over stems and subject groups.

Split out of `matching` (round h46), which holds the history of what was measured: a question and
each note read as people read them (normalised, function words of their language dropped, stemmed
for English and Portuguese, words typed wrong read as the nearest word the notes use, words naming
a subject joined to it by `concepts`), then ranked with BM25; with the share of the question's
words, and of its rarer words (`meaning.rarity`), that each note speaks to."""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz import fuzz, process

from server.answering import concepts, meaning
from server.answering.normalised import normalise

UNKNOWN = 1.0  # a question's word no note uses weighs against every note as much as the rarest term
GROUP_WEIGHT = (
    2.0  # a subject group's term weighs twice a word's own stem (a word has up to two stems)
)
TYPO_SCORE = 85  # rapidfuzz ratio from which an unknown word of 5+ letters is read as a known one typed wrong
BM25_K1 = 1.2
BM25_B = 0.75


# --- text as people read it ----------------------------------------------------------------------

# Function words of each language (folded): they say how a question is asked, not what about. A
# text drops its own language's (`text_language`): "os" is an article in Portuguese and an
# operating system in English ("what machine and OS does he use?"). Negations too (not, don't,
# não, nem, nunca): they say a sentence's polarity, not its subject ("Não entrego código sem
# testes" is about testing); a refusal is named by its verb (`concepts`: refuse, avoid, recusa,
# evita, turn down).
_EN_STOPWORDS = frozenset(
    """
a an the of for to with and or but please me my mine our your yours his her hers their its it this that these
those much many whether is are be been being was were do does did doing done can could would will shall should
may might must i you we he she they them us him in on at by from about into as any some all what which who whom
whose how when where why there here up out just also than then so if no yes have has had am i'm i've i'd
it's what's don't doesn't there's does ever usually actually exactly really kind sort stuff thing things get
got like someone something anything anyone else herself himself themselves yourself one ones would'
""".split()
)
_PT_STOPWORDS = frozenset(
    """
a o os as um uma uns umas de do da dos das no na nos nas em para pra pro por pelo pela pelos pelas com e ou mas
me mim meu minha meus minhas seu sua seus suas nosso nossa dele dela deles delas isso isto este esta esse essa
aquele aquela estes estas esses essas que qual quais quem como quando onde porque se sim eu voce vc tu ele
ela eles elas lhe favor pf pfv agora ja tambem so ai la aqui foi ser estar esta sao ha tem tenho ter pode
poderia consegue quanto quanta quantos quantas nele nela disso desse dessa deste desta algum alguma alguns
algumas costuma costumam exatamente mesmo mesma coisa coisas alguem algo ta to vai vou sera seria faz fazer
""".split()
)
# words dropped in either language: light verbs ("work", "use", "faz")
_BOTH_STOPWORDS = frozenset(
    """
work works worked working trabalha trabalhar trabalho trabalhou go goes went use uses used usa usar need needs
precisa tipo make makes made fazem feito fez way pode sabe know take takes usually normalmente
""".split()
)
STOPWORDS = _EN_STOPWORDS | _PT_STOPWORDS | _BOTH_STOPWORDS
_STOPWORDS_OF = {
    "en": _EN_STOPWORDS | _BOTH_STOPWORDS,
    "pt": _PT_STOPWORDS | _BOTH_STOPWORDS,
    "": STOPWORDS,
}
_WORD = re.compile(r"[a-z0-9]+")


def text_language(text: str) -> str:
    """ "en" or "pt" by which language's own function words the text has more of ("" on a tie): what
    is a function word in one language may be a content word in the other ("OS" and the article
    "os"; "a" and "as" are in both lists, so they decide nothing)."""
    found = _WORD.findall(normalise(text))
    en = sum(w in _EN_STOPWORDS and w not in _PT_STOPWORDS for w in found)
    pt = sum(w in _PT_STOPWORDS and w not in _EN_STOPWORDS for w in found)
    return "en" if en > pt else "pt" if pt > en else ""


_STEMMERS = (snowballstemmer.stemmer("english"), snowballstemmer.stemmer("portuguese"))
_STEM_LOCK = threading.Lock()  # snowballstemmer's stemmers keep state between calls


def words(text: str, names: frozenset[str] = frozenset()) -> list[str]:
    """The content words of a text, normalised, less its language's function words (both
    languages' when it is not clear which it is in); the asked-about member's own names are not
    content."""
    stop = _STOPWORDS_OF[text_language(text)]
    return [
        w for w in _WORD.findall(normalise(text)) if len(w) > 1 and w not in stop and w not in names
    ]


def as_asked(text: str) -> tuple[str, ...]:
    """Every word of a text in order, as people read it (case, accents, look-alikes and punctuation
    aside): two questions with the same words are the same question, whoever typed them."""
    return tuple(_WORD.findall(normalise(text)))


@lru_cache(maxsize=65536)
def stems(word: str) -> tuple[str, ...]:
    """The word stemmed for English and for Portuguese (one term when both agree)."""
    with _STEM_LOCK:
        found = tuple(dict.fromkeys(stemmer.stemWord(word) for stemmer in _STEMMERS))
    return found


# --- the index of one set of notes ---------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    """One set of notes, ready to rank: per term, the notes that have it and its BM25 weight in each."""

    postings: dict[
        str, tuple[tuple[int, float], ...]
    ]  # term -> (note position, idf-weighted BM25 part)
    idf: dict[str, float]
    unknown: float  # what a term no note has weighs in the question's ceiling
    vocabulary: tuple[str, ...]  # the notes' folded words, for typo tolerance
    known: frozenset[str]
    size: int


@lru_cache(maxsize=1)
def _concepts() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(word -> groups, stem -> groups): a word a group lists names that group only ("estudio" is a
    workplace, though its stem is that of "estudou"); any other word names the groups of its stems."""
    by_word: dict[str, list[str]] = {}
    by_stem: dict[str, list[str]] = {}
    for name, members in concepts.GROUPS.items():
        for word in members.split():
            folded = normalise(word)
            by_word.setdefault(folded, []).append("#" + name)
            for stem in stems(folded):
                by_stem.setdefault(stem, [])
                if "#" + name not in by_stem[stem]:
                    by_stem[stem].append("#" + name)
    return (
        {w: tuple(dict.fromkeys(g)) for w, g in by_word.items()},
        {stem: tuple(g) for stem, g in by_stem.items()},
    )


@lru_cache(maxsize=65536)
def _word_terms(token: str) -> tuple[str, ...]:
    """A word's terms: its stems (or, for a word a group lists, the word itself), and the subject
    groups it names ("#location")."""
    by_word, by_stem = _concepts()
    # a word a group lists is read as itself and its group, not by its stems: a stem joins forms a
    # group tells apart ("living", an occupation, and "lived", a past address, are both "live")
    found = (token,) if token in by_word else stems(token)
    groups = (
        by_word[token]
        if token in by_word
        else tuple(dict.fromkeys(group for stem in found for group in by_stem.get(stem, ())))
    )
    return found + tuple(g for g in groups if g not in found)


def _weight(term: str) -> float:
    return GROUP_WEIGHT if term.startswith("#") else 1.0


# Where a note's confirmed examples begin in the text `taught.view` hands the ranking (a character no
# text keeps: `words` reads letters and digits only).
EXAMPLES_BELOW = "\n\x1e\n"


def _terms(topic: str, text: str) -> tuple[list[str], Counter[str]]:
    """A note's words and terms. Its own words name their subjects; its examples' words count as
    themselves only (their stems): an example is a question the member confirmed, evidence for the
    words it holds, and a subject reached from it would be a guess of ours on their label (round
    h46's newest corpus: "ela é casada?" taught, "casada" stems to the "cas" of "casa", a workplace
    word, and the note was quoted for a question about a yoga studio)."""
    own, _, examples = text.partition(EXAMPLES_BELOW)
    mine, taught = words(f"{topic} {own}"), words(examples)
    counts = Counter(term for token in mine for term in _word_terms(token))
    counts.update(term for token in taught for term in _literal_terms(token))
    return mine + taught, counts


@lru_cache(maxsize=65536)
def _literal_terms(token: str) -> tuple[str, ...]:
    """A word's own terms, without the subjects it names: itself where a group lists it, else its stems."""
    return (token,) if token in _concepts()[0] else stems(token)


@lru_cache(maxsize=256)
def _index(notes: tuple[tuple[str, str, str], ...]) -> _Index:
    read = [_terms(topic, text) for _, topic, text in notes]
    tokens = [found for found, _ in read]
    counts = [c for _, c in read]
    lengths = [sum(c.values()) for c in counts]
    average = sum(lengths) / max(len(notes), 1)
    frequency = Counter(term for c in counts for term in c)
    idf = {term: math.log(1 + (len(notes) - n + 0.5) / (n + 0.5)) for term, n in frequency.items()}
    postings: dict[str, list[tuple[int, float]]] = {}
    for position, (c, length) in enumerate(zip(counts, lengths, strict=True)):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / (average or 1.0))
        for term, tf in c.items():
            part = _weight(term) * idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
            postings.setdefault(term, []).append((position, part))
    # a word typed wrong is read as a word of the notes, or a word naming a subject of theirs
    vocabulary = tuple(sorted({w for t in tokens for w in t} | set(_concepts()[0])))
    return _Index(
        {t: tuple(p) for t, p in postings.items()},
        idf,
        UNKNOWN * max(idf.values(), default=1.0),
        vocabulary,
        frozenset(vocabulary),
        len(notes),
    )


def _corrected(tokens: list[str], index: _Index) -> list[str]:
    """Each word the notes do not use read as the nearest one they do, when it is close enough."""
    result = []
    for token in tokens:
        if token in index.known or len(token) < 5 or token.isdigit():
            result.append(token)
            continue
        best = process.extractOne(
            token, index.vocabulary, scorer=fuzz.ratio, score_cutoff=TYPO_SCORE
        )
        result.append(best[0] if best else token)
    return result


def _named_member_dropped(tokens: list[str], index: _Index) -> list[str]:
    """The question without its first word that no note knows: notes speak in the first person and a
    question usually names the member once ("Where does Ana live?"); that name is no subject."""
    for position, token in enumerate(tokens):
        if not any(term in index.idf for term in _word_terms(token)):
            return tokens[:position] + tokens[position + 1 :]
    return tokens


def name_words(names: Sequence[str]) -> frozenset[str]:
    """The words of the asked-about member's names (handle, display name), folded as questions are."""
    return frozenset(w for name in names for w in _WORD.findall(normalise(name)))


def assess(
    question: str, notes: Sequence[tuple[str, str, str]], names: frozenset[str] = frozenset()
) -> tuple[list[float], list[float]]:
    """(score, coverage) of each note for the question (`read`, less its rare coverage)."""
    score, coverage, _ = read(question, notes, names)
    return score, coverage


def read(
    question: str, notes: Sequence[tuple[str, str, str]], names: frozenset[str] = frozenset()
) -> tuple[list[float], list[float], list[float]]:
    """(score, coverage, rare coverage) of each note for the question: what `match` decides on.

    The score is BM25 over the question's distinct terms, normalised by what the question could score at
    best (each term found once, every one known); the coverage is the share of the question's words
    (its name aside) that the note speaks to, by a stem or by a subject; the rare coverage weighs
    each of those words by its rarity in general language (`meaning.rarity`). The member's own names
    (`names`, from `name_words`) are never a question's subject, even where a note holds one
    ("@dra.joana.exoticos"); without them, the question's first word no note knows is taken for it."""
    index = _index(tuple(notes))
    tokens = list(_tokens(question, names, tuple(notes)))
    score = _bm25(tokens, index)
    spared = tokens if names else _named_member_dropped(tokens, index)
    weights = [meaning.rarity(token) for token in spared]
    total = math.fsum(weights)
    spoken = [0] * index.size
    rare = [0.0] * index.size
    for token, weight in zip(spared, weights, strict=True):
        for position in {p for term in _word_terms(token) for p, _ in index.postings.get(term, ())}:
            spoken[position] += 1
            rare[position] += weight
    return (
        score,
        [n / len(spared) if spared else 0.0 for n in spoken],
        [r / total if total > 0 else 0.0 for r in rare],
    )


@lru_cache(maxsize=1024)
def _tokens(
    question: str, names: frozenset[str], notes: tuple[tuple[str, str, str], ...]
) -> tuple[str, ...]:
    """The question's words, typos read as the notes' words (cached: `own_scores` reads them again)."""
    return tuple(_corrected(words(question, names), _index(notes)))


def _bm25(tokens: Sequence[str], index: _Index) -> list[float]:
    """BM25 of the question's distinct terms, over what the question could score at best."""
    query = dict.fromkeys(term for token in tokens for term in _word_terms(token))
    score = [0.0] * index.size
    for term in query:
        for position, part in index.postings.get(term, ()):
            score[position] += part
    ceiling = sum(_weight(term) * index.idf.get(term, index.unknown) for term in query) or 1.0
    return [s / ceiling for s in score]


def own_scores(
    question: str,
    read_with: Sequence[tuple[str, str, str]],
    notes: Sequence[tuple[str, str, str]],
    names: frozenset[str] = frozenset(),
) -> list[float]:
    """Each note's score on its own text for the question as `read` read it with `read_with` (the
    notes with their examples): the same words, ranked without the examples' words."""
    return _bm25(_tokens(question, names, tuple(read_with)), _index(tuple(notes)))


def scores(question: str, notes: Sequence[tuple[str, str, str]]) -> list[float]:
    """The score of each note for the question (for measuring; `match` decides)."""
    return assess(question, notes)[0]


def warm() -> None:
    """Builds the subject table and runs the stemmers and the typo scorer once (see `matching.warm`)."""
    normalise(
        "warm\u00e9\u0430"
    )  # a non-ASCII text loads the look-alike table (text.readable reads it lazily)
    _concepts()
    _word_terms("warm")
    process.extractOne("warm", ("warn",), scorer=fuzz.ratio, score_cutoff=TYPO_SCORE)
