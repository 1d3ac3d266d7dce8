"""Which tools a clause reaches: by its verb's family, then by the words of the tools' names.

Read verbs (show, find, calculate, retrieve …) reach every tool that reads; a write verb reaches
only tools of its own action (book reaches book and reserve, never get); a tool's name is read
by names.py. Among the tools a verb reaches, a tool is admitted when the turn names the thing
its name is about (the head noun, a word of its stem, two words written as one, or an abbreviation
the turn spells out: gcd is "greatest common divisor"), with at least half of that name's qualifiers
and no other modifier where its own qualifiers go unnamed ("freezing point" is not boiling_point);
the tool whose name the turn names most fully wins, and a tie is asked about, never guessed. A verbless
question that says whose thing it asks about ("what is the weight of ships?") does not reach a tool whose
own qualifiers it leaves unnamed (estimate_roof_weight): that is a question of knowledge.
"""

from __future__ import annotations

from bisect import bisect_left

from server.router import lexicon as lx
from server.router.catalogue import Catalogue, CatalogueTool
from server.router.names import singular
from server.router.reader import Clause, Token
from server.router.vocabulary import Vocabulary

_OF = frozenset({"of", "de", "do", "da", "dos", "das"})
OBJECT_PRONOUNS = {
    "en": frozenset({"me", "us", "him", "them"}),
    "pt-BR": frozenset({"me", "nos", "lhe", "lhes"}),
}
_ARTICLES = frozenset({"a", "an", "the", "o", "os", "as", "um", "uma"})

# Verbs of one action that serve each other most closely: the turn's "show" is the tool's "get".
CLOSE = {
    "get": {"get", "view", "read", "check", "list"},
    "view": {"get", "view"},
    "read": {"read", "get", "check"},
    "check": {"check", "get", "read"},
    "list": {"list", "get", "search"},
    "search": {"search", "list"},
    "compute": {"compute", "get"},
    # adding to a thing changes it: "add a note to my briefing" where the briefing is updated
    "add": {"add", "update"},
}


def clause_span(clause: Clause) -> set[int]:
    if clause.verb is None:
        return set()
    return {clause.tokens[clause.verb.index + k].index for k in range(clause.verb.length)}


def things(
    tokens: list[Token], language: str, vocabulary: Vocabulary, verb_span: set[int]
) -> list[tuple[Token, str]]:
    """(token, tool noun) for every word or phrase of the clause that names a noun, in order."""
    found: list[tuple[Token, str]] = []
    function = lx.FUNCTION_WORDS[language]
    objects, operators = OBJECT_PRONOUNS[language], lx.COMPUTE_OPERATORS[language]
    # a word right before an object pronoun is a verb ("help me", "assist us"), and an operator between two
    # numbers is arithmetic ("394 times 213"): never the thing asked about
    words = []
    last = len(tokens) - 1
    for i, t in enumerate(tokens):
        if t.kind != "word" or t.index in verb_span:
            continue
        after = tokens[i + 1] if i < last else None
        if (
            after is not None
            and after.norm in objects
            and after.index == t.index + 1
            and t.norm not in objects
        ):
            continue
        if (
            t.norm in operators
            and i > 0
            and after is not None
            and tokens[i - 1].kind in ("number", "decimal")
            and after.kind in ("number", "decimal")
        ):
            continue
        words.append(t)
    if not vocabulary.nouns:
        return [(w, singular(w.norm)) for w in words if w.norm not in function]
    i = 0
    while i < len(words):
        phrase_noun = None
        for size in vocabulary.phrase_sizes:
            if i + size <= len(words):
                phrase_noun = vocabulary.nouns.get(" ".join(w.norm for w in words[i : i + size]))
                if phrase_noun:
                    found.append((words[i], phrase_noun))
                    i += size
                    break
        if phrase_noun:
            continue
        word = words[i]
        noun = vocabulary.noun(word.norm)
        if noun:
            found.append((word, noun))
        elif word.norm not in function:
            found.append((word, singular(word.norm)))
        i += 1
    return found


def by_purpose(tools: list[CatalogueTool], found: list[tuple[Token, str]]) -> list[CatalogueTool]:
    """The tools whose description's thing (catalogue.py's purpose) the turn names as a thing of its own."""
    named = {noun for _, noun in found}
    return [t for t in tools if t.purpose and t.purpose in named]


def qualifier_only(
    tool: CatalogueTool, found: list[tuple[Token, str]], tools: tuple[CatalogueTool, ...]
) -> bool:
    """Whether the turn names the tool's thing only to qualify another thing that is another tool's
    ("movie tickets" names tickets, not the movies that a movie search finds): each time, right before
    a noun that some tool of the catalogue is for and that this tool neither is nor reads."""
    if not tool.nouns:
        return False
    own = {*tool.nouns, *tool.adjectives, *tool.namespace, *tool.param_nouns}
    head = tool.nouns[0]
    seen = False
    for (token, noun), (after, after_noun) in zip(found, found[1:], strict=False):
        if noun != head:
            continue
        if (
            after.index != token.index + 1
            or after_noun in own
            or not any(after_noun in t.nouns for t in tools if t is not tool)
        ):
            return False
        seen = True
    return seen and found[-1][1] != head


def compatible(action: str | None, tool: CatalogueTool) -> bool:
    """Read verbs reach every tool that reads; other verbs only tools of their own action."""
    if action is None:
        return False
    if lx.ACTIONS.get(action) == "read" and not tool.writes:
        return True
    return tool.action in CLOSE.get(action, {action})


def reaching(catalogue: Catalogue, action: str | None) -> tuple[CatalogueTool, ...]:
    """The catalogue's tools an action reaches (compatible), once per catalogue and action."""
    found = catalogue.reached.get(action)
    if found is None:
        found = catalogue.reached[action] = tuple(
            t for t in catalogue.tools if compatible(action, t)
        )
    return found


def stem_shared(a: str, b: str) -> bool:
    """Two words of one stem: a common start of seven letters or more, at most three short of the shorter."""
    if len(a) < 7 or len(b) < 7 or a[:7] != b[:7]:
        return False
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= 7 and n >= min(len(a), len(b)) - 3


class _Compounds(set[str]):
    """Pairs written as one word; also any word that ends in one of the turn's longer words."""

    def __init__(self, pairs: set[str], longer: list[str]):
        super().__init__(pairs)
        self.longer = frozenset(longer)

    def __contains__(self, word: object) -> bool:
        if set.__contains__(self, word):
            return True
        # a longer word of the turn ends it, two letters or more after its start: its endings looked up
        return isinstance(word, str) and any(
            word[k:] in self.longer for k in range(2, len(word) - 4)
        )


class TurnWords:
    """The nouns a clause names, as the tools' names are matched against them."""

    def __init__(self, found: list[tuple[Token, str]], tokens: list[Token] | None = None):
        self.found = found
        self.tokens = tokens or []
        self.nouns = [noun for _, noun in found]
        self.set = set(self.nouns)
        self.words = " ".join(self.nouns).split()  # a phrase noun's words apart
        self._initials: tuple[str, str] | None = None
        self._sorted: list[str] | None = None
        self._stems: dict[str, list[str]] | None = None
        self._compounds: _Compounds | None = None
        self._named: dict[
            str, bool
        ] = {}  # a word of a tool's name, once per clause: tools share words

    def initials(self) -> tuple[str, str]:
        """Abbreviations the turn spells out: "greatest common divisor" is gcd. The first letters of
        its nouns' words and of all its words, each as one string: an abbreviation is a run of them."""
        if self._initials is None:
            words = [t.norm for t in self.tokens if t.kind == "word"]
            self._initials = (
                "".join(w[0] for w in self.words if w),
                "".join(w[0] for w in words if w),
            )
        return self._initials

    def modifier(self, head: str) -> str | None:
        """The word right before where the turn names a thing: freezing in "freezing point"; a possessive
        ("the company's return") is an owner, not a modifier."""
        for i, (token, noun) in enumerate(self.found):
            if noun == head and i > 0 and self.found[i - 1][0].index == token.index - 1:
                before = self.found[i - 1][0]
                if (
                    before.text.endswith(("'s", "’s"))
                    or before.norm == "is"
                    or before.text[:1].isupper()
                ):
                    return None  # an owner, or part of a name ("the Metropolitan Museum")
                return self.found[i - 1][1]
        return None

    def complement(self, head: str) -> str | None:
        """The noun an "of" phrase puts right after where the turn names a thing: species in "the
        composition of species", especie in "composicao das especies"; none after a name or a number."""
        for i, (token, noun) in enumerate(self.found):
            if noun != head:
                continue
            if i + 1 == len(self.found):
                return None
            after, after_noun = self.found[i + 1]
            between = [t.norm for t in self.tokens if token.index < t.index < after.index]
            if (
                not between
                or between[0] not in _OF
                or len(between) > 2
                or after.text[:1].isupper()
                or (len(between) == 2 and between[1] not in _ARTICLES)
            ):
                return None
            return after_noun
        return None

    def names(self, word: str) -> bool:
        """Whether the turn names a word of a tool's name: as it is, by its start, stem or compound."""
        if word in self.set:
            return True
        named = self._named.get(word)
        if named is None:
            named = self._named[word] = self._names(word)
        return named

    def _names(self, word: str) -> bool:
        if len(word) >= 4 and self._prefixes(word):
            return True  # hypot in "hypotenuse", electric in "electricity"
        if len(word) >= 7 and any(stem_shared(word, w) for w in self._stem(word[:7])):
            return True  # "availability" in "available", "projection" in "projected"
        if len(word) >= 6 and word in self.compounds():
            return True  # "timezone" in "time zone", "geodistance" in "distance"
        return 2 <= len(word) <= 4 and any(word in letters for letters in self.initials())

    def _prefixes(self, word: str) -> bool:
        """Whether a word of the turn starts with this one and is at most five letters longer."""
        if self._sorted is None:
            self._sorted = sorted(set(self.words))
        ordered = self._sorted
        i = bisect_left(ordered, word)
        while i < len(ordered) and ordered[i].startswith(word):
            if len(ordered[i]) <= len(word) + 5:
                return True
            i += 1
        return False

    def _stem(self, start: str) -> list[str]:
        """The turn's words that begin with these seven letters (stem_shared needs as many)."""
        if self._stems is None:
            self._stems = {}
            for w in self.words:
                if len(w) >= 7:
                    self._stems.setdefault(w[:7], []).append(w)
        return self._stems.get(start, [])

    def compounds(self) -> set[str]:
        """Two of the turn's words written as one ("time zone": timezone), and the longer words a
        tool may prefix ("distance" ends "geodistance")."""
        if self._compounds is None:
            pairs = {a + b for a, b in zip(self.words, self.words[1:], strict=False)}
            self._compounds = _Compounds(pairs, [w for w in self.words if len(w) >= 5])
        return self._compounds


def rank(
    tools: list[CatalogueTool], turn: TurnWords, primary: str | None, action: str | None
) -> list[CatalogueTool]:
    """The tools whose names the turn names best; several only where they tie."""
    scored = []
    for tool in tools:
        if not tool.nouns or not turn.names(tool.nouns[0]):
            continue
        qualifiers = [w for w in tool.adjectives if turn.names(w)]
        if len(qualifiers) < len(tool.adjectives) // 2:
            continue
        modifier = turn.modifier(tool.nouns[0]) if len(qualifiers) < len(tool.adjectives) else None
        if (
            modifier
            and modifier not in tool.adjectives
            and modifier not in tool.namespace
            and modifier not in lx.NAME_ADJECTIVES
            and modifier not in lx.EVALUATIVES
            and not (tool.verb and modifier.startswith(tool.verb[:5]))
        ):
            # ("the estimated return" is what estimate_…_return makes)
            continue  # "freezing point" is not what boiling_point is about
        if action is None and tool.adjectives and not qualifiers:
            # "what is the composition of species?" does not ask what soil_composition is about: the
            # question says whose composition, and it is not the tool's (a verb's request reads on)
            complement = turn.complement(tool.nouns[0])
            if (
                complement
                and complement not in tool.adjectives
                and complement not in tool.namespace
                and complement not in tool.nouns
            ):
                continue
        namespace = sum(1 for w in tool.namespace if turn.names(w))
        close = tool.action in CLOSE.get(action or "", {action})
        key = (
            1 + len(qualifiers),
            tool.nouns[0] == primary,
            close,
            namespace,
            -(len(tool.adjectives) - len(qualifiers)),
        )
        scored.append((key, tool))
    if not scored:
        return []
    best = max(key for key, _ in scored)
    return [tool for key, tool in scored if key == best]
