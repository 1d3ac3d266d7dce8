"""Which of a member's notes answers a question asked in other words: a pure, deterministic matcher.

A question is compared with each note as people read them: normalised (NFKC, case folded, invisible
controls removed, look-alike letters mapped, accents folded), split into content words, each word
stemmed for English and for Portuguese (a question may be in either language, and so may a note),
words typed wrong read as the nearest word the notes use (rapidfuzz), words naming a briefing's
subject ("mora", "based", "city") joined to that subject (`concepts`), then ranked with BM25. The
best note is quoted only when it clearly beats the rest (`THRESHOLD` and `MARGIN`, chosen on the
paraphrase corpus in tests/answering), otherwise the matcher is not sure and says so with the
closest candidates, for the principal.

Measured on that corpus's tuning two-thirds and left out: a static embedding (WordLlama's token
table, which ships in its wheel): ranking the right note first fell from 0.82 to 0.69 blended half
and half, and the answer rate at the same wrong-note ceiling did not rise (scripts/answer-rate).

Nothing is read from disk at match time; indexes are cached per notes' content, so a member's notes
are indexed once, whatever the number of questions.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer
from rapidfuzz import fuzz, process

from server.answering import concepts
from server.answering.normalised import normalise

# Chosen on the tuning two-thirds of tests/answering/paraphrase_corpus.yaml (scripts/answer-rate), as the
# most answers with no wrong note and no unanswerable question answered there:
THRESHOLD = 0.28  # the best note's score (BM25 over stems and subjects, normalised to 0..1) must reach this
MARGIN = 0.05  # ... beat the runner-up's by this much
COVERAGE = 0.6  # ... and speak to more than half of the question's words (its first unknown word, the name, aside)
UNKNOWN = 1.0  # a question's word no note uses weighs against every note as much as the rarest term
GROUP_WEIGHT = 2.0  # a subject group's term weighs twice a word's own stem (a word has up to two stems)
TYPO_SCORE = 88  # rapidfuzz ratio from which an unknown word of 5+ letters is read as a known one typed wrong
CANDIDATES = 3
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class Match:
    chosen: tuple[str, ...]  # note ids to quote, best first, 0..3; empty = not sure
    candidates: tuple[str, ...]  # the closest note ids (for the principal when escalating)


# --- text as people read it ----------------------------------------------------------------------

# Function words of both languages (folded): they say how a question is asked, not what about.
STOPWORDS = frozenset("""
a an the of for to with and or but please me my mine our your yours his her hers their its it this that these
those much many whether is are be been being was were do does did doing done can could would will shall should
may might must i you we he she they them us him in on at by from about into as any some all what which who whom
whose how when where why there here up out just also than then so if no yes have has had am i'm i've i'd
it's what's don't doesn't there's does ever usually actually exactly really kind sort stuff thing things get
got like someone something anything anyone else own herself himself themselves yourself one ones would'
o os as um uma uns umas de do da dos das no na nos nas em para pra pro por pelo pela pelos pelas com e ou mas
me mim meu minha meus minhas seu sua seus suas nosso nossa dele dela deles delas isso isto este esta esse essa
aquele aquela estes estas esses essas que qual quais quem como quando onde porque se sim eu voce vc tu ele
ela eles elas lhe favor pf pfv agora ja tambem so ai la aqui foi ser estar esta sao ha tem tenho ter pode
poderia consegue quanto quanta quantos quantas nele nela disso desse dessa deste desta algum alguma alguns
algumas costuma costumam exatamente mesmo mesma coisa coisas alguem algo ta to vai vou sera seria faz fazer
work works worked working trabalha trabalhar trabalho trabalhou go goes went use uses used usa usar need needs
precisa tipo make makes made fazem feito fez way pode sabe know take takes usually normalmente
""".split())

_WORD = re.compile(r"[a-z0-9]+")
_STEMMERS = (snowballstemmer.stemmer("english"), snowballstemmer.stemmer("portuguese"))
_STEM_LOCK = threading.Lock()  # snowballstemmer's stemmers keep state between calls


def words(text: str, names: frozenset[str] = frozenset()) -> list[str]:
    """The content words of a text, normalised; the asked-about member's own names are not content."""
    return [w for w in _WORD.findall(normalise(text)) if len(w) > 1 and w not in STOPWORDS and w not in names]


@lru_cache(maxsize=65536)
def stems(word: str) -> tuple[str, ...]:
    """The word stemmed for English and for Portuguese (one term when both agree)."""
    with _STEM_LOCK:
        found = tuple(dict.fromkeys(stemmer.stemWord(word) for stemmer in _STEMMERS))
    return found


# --- the index of one set of notes ---------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    ids: tuple[str, ...]
    terms: tuple[Counter[str], ...]  # per note: stemmed term counts
    lengths: tuple[int, ...]
    average_length: float
    idf: dict[str, float]
    vocabulary: tuple[str, ...]  # the notes' folded words, for typo tolerance
    known: frozenset[str]


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
    return ({w: tuple(dict.fromkeys(g)) for w, g in by_word.items()},
            {stem: tuple(g) for stem, g in by_stem.items()})


def _groups(token: str, found: tuple[str, ...]) -> tuple[str, ...]:
    by_word, by_stem = _concepts()
    if token in by_word:
        return by_word[token]
    return tuple(dict.fromkeys(group for stem in found for group in by_stem.get(stem, ())))


def _terms(tokens: Sequence[str]) -> Counter[str]:
    """Stems, and the subject groups a word names (once a group per word)."""
    counted: Counter[str] = Counter()
    for token in tokens:
        found = stems(token)
        counted.update(found)
        counted.update(dict.fromkeys(_groups(token, found), 1))
    return counted


@lru_cache(maxsize=256)
def _index(notes: tuple[tuple[str, str, str], ...]) -> _Index:
    tokens = [words(f"{topic} {text}") for _, topic, text in notes]
    terms = tuple(_terms(t) for t in tokens)
    lengths = tuple(sum(c.values()) for c in terms)
    count = len(notes)
    frequency = Counter(term for c in terms for term in c)
    idf = {term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in frequency.items()}
    vocabulary = tuple(sorted({w for t in tokens for w in t}))
    return _Index(tuple(i for i, _, _ in notes), terms, lengths, sum(lengths) / max(count, 1), idf, vocabulary,
                  frozenset(vocabulary))


def _corrected(tokens: list[str], index: _Index) -> list[str]:
    """Each word the notes do not use read as the nearest one they do, when it is close enough."""
    result = []
    for token in tokens:
        if token in index.known or len(token) < 5 or token.isdigit():
            result.append(token)
            continue
        best = process.extractOne(token, index.vocabulary, scorer=fuzz.ratio, score_cutoff=TYPO_SCORE)
        result.append(best[0] if best else token)
    return result


def _weight(term: str) -> float:
    return GROUP_WEIGHT if term.startswith("#") else 1.0


def _bm25(query: Counter[str], index: _Index) -> list[float]:
    scores = []
    for terms, length in zip(index.terms, index.lengths):
        score = 0.0
        for term in query:
            tf = terms.get(term, 0)
            if tf:
                norm = BM25_K1 * (1 - BM25_B + BM25_B * length / index.average_length)
                score += _weight(term) * index.idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
        scores.append(score)
    # normalised by what the question could score at best (each of its terms found once, in a note of average length)
    unknown = UNKNOWN * max(index.idf.values(), default=1.0)  # a word no note uses counts against every note
    ceiling = sum(_weight(term) * index.idf.get(term, unknown) for term in query) or 1.0
    return [s / ceiling for s in scores]


def _named_member_dropped(tokens: list[str], index: _Index) -> list[str]:
    """The question without its first word that no note knows: notes speak in the first person and a
    question usually names the member once ("Where does Ana live?"); that name is no subject."""
    for position, token in enumerate(tokens):
        found = stems(token)
        if not any(stem in index.idf for stem in found) and not any(g in index.idf for g in _groups(token, found)):
            return tokens[:position] + tokens[position + 1:]
    return tokens


def _coverage(tokens: list[str], terms: Counter[str]) -> float:
    """The share of the question's words a note speaks to (by a stem or by a subject)."""
    if not tokens:
        return 0.0
    spoken = sum(1 for token in tokens
                 if any(stem in terms for stem in stems(token)) or any(g in terms for g in _groups(token, stems(token))))
    return spoken / len(tokens)


def assess(question: str, notes: Sequence[tuple[str, str, str]]) -> tuple[list[float], list[float]]:
    """(score, coverage) of each note for the question: what `match` decides on."""
    index = _index(tuple(notes))
    tokens = _corrected(words(question), index)
    spared = _named_member_dropped(tokens, index)
    return _bm25(_terms(tokens), index), [_coverage(spared, terms) for terms in index.terms]


def scores(question: str, notes: Sequence[tuple[str, str, str]]) -> list[float]:
    """The score of each note for the question (for measuring; `match` decides)."""
    return assess(question, notes)[0]


def match(question: str, language: str, notes: Sequence[tuple[str, str, str]]) -> Match:
    """The note to quote for the question, if one clearly answers it; else none, with the closest ones.

    `language` is the asker's; both languages' stems are used whatever it says (notes may be in either)."""
    if not notes:
        return Match((), ())
    score, coverage = assess(question, notes)
    order = sorted(range(len(notes)), key=lambda i: (-score[i], notes[i][0]))
    candidates = tuple(notes[i][0] for i in order[:CANDIDATES] if score[i] > 0)
    best = order[0]
    runner_up = score[order[1]] if len(order) > 1 else 0.0
    if score[best] < THRESHOLD or score[best] - runner_up < MARGIN or coverage[best] < COVERAGE:
        return Match((), candidates)
    return Match((notes[best][0],), candidates)


def warm() -> None:
    """Builds the subject table and loads the stemmers' tables before the worker confines itself.

    Matching reads nothing from disk after import; this only moves the first question's set-up cost."""
    _concepts()
    stems("warm")
