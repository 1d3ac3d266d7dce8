"""How sure the router is of the *tool* a turn reaches, apart from the values it binds.

A tool's name says which kind of request it serves; a turn that matches that kind and gives none of
the values the tool reads ("find me a train", "I need a round trip flight") names only the kind of
thing it wants. A reading verb (find, get, show) reaches every tool that reads, so with nothing else
the tool is a guess: the router says nothing here does that with what was said, rather than asking
for the values of a tool the person may not mean. Evidence that the tool is meant, read from the
schema and the turn:

- the turn offers a candidate for one of the tool's required values: a token of the kind the
  parameter takes (a number for a number, a date or day for a time, a name after a preposition of
  place for a place, one of its listed values for an enum), bound or not;
- the turn carries a value at all: a number, date, quoted text, link, a capitalised name, a day,
  or a word naming *which* of the tool's things it means ("a recipe for feijoada", "member zed");
- the turn's verb is the tool's own writing action ("apply", "book"): a request to do that one thing.

A tool the turn reaches only through the thing one of its parameters reads (assign_courier through
parcel_id, for "show me the parcel in Lisbon") is meant only when the turn's value for it is bound.
"""

from __future__ import annotations

from server.router import lexicon as lx
from server.router.catalogue import CatalogueTool, Param
from server.router.names import singular
from server.router.tokens import Token

# Token kinds that are values whatever the sentence: a parameter could take each as written
VALUE_KINDS = frozenset(
    {
        "number",
        "decimal",
        "money",
        "ordinal",
        "date",
        "email",
        "url",
        "domain",
        "list",
        "quoted",
        "handle",
    }
)
_NUMBER_KINDS = frozenset({"number", "decimal", "money"})
# The token kinds in which a link or an address parameter's value is written (by its name's last word)
_ADDRESS_KINDS = {
    "url": frozenset({"url", "domain"}),
    "uri": frozenset({"url", "domain"}),
    "link": frozenset({"url", "domain"}),
    "webhook": frozenset({"url", "domain"}),
    "endpoint": frozenset({"url", "domain"}),
    "email": frozenset({"email"}),
}
_TIME_KINDS = frozenset({"date", "ordinal", "number"})
_CLOCK = frozenset({"am", "pm"})
_ENDS = frozenset({".", "!", "?"})
# Words by which a parameter's name or description says it takes a place; a place is written as a name
# after a preposition of place ("in Paris", "from New York", "at the Shattuck Cinemas")
PLACE_WORDS = frozenset(
    {
        "location",
        "city",
        "place",
        "town",
        "area",
        "country",
        "region",
        "district",
        "province",
        "destination",
        "origin",
        "venue",
        "where",
        "address",
        "cidade",
        "local",
    }
)
PLACE_PREPOSITIONS = {
    "en": frozenset({"in", "at", "near", "from", "to", "around", "for", "within", "inside"}),
    "pt-BR": frozenset({"em", "no", "na", "de", "do", "da", "para", "perto"}),
}
# Words between a thing and the word that says which one ("a recipe for feijoada", "receita de feijoada")
WHICH_PREPOSITIONS = {
    "en": frozenset({"for", "of", "about", "named", "called"}),
    "pt-BR": frozenset({"de", "do", "da", "sobre", "chamado", "chamada"}),
}
_ARTICLES = frozenset({"the", "a", "an", "o", "os", "as"})
# Words that say when, a time of day's am and pm aside ("I am": am is a time only after a number)
_DAYS = {language: (times | lx.MONTHS) - _CLOCK for language, times in lx.TIME_WORDS.items()}


def _proper(token: Token, before: Token | None, language: str) -> bool:
    """A word written with a capital where a sentence does not begin: part of a name (Paris, PostgreSQL)."""
    if (
        token.kind != "word"
        or not token.text[:1].isupper()
        or before is None
        or before.norm in _ENDS
    ):
        return False
    norm = token.norm
    return not (
        norm in lx.FUNCTION_WORDS[language]
        or norm == "i"
        or norm.startswith("i'")
        or norm in lx.MONTHS
        or norm in lx.TIME_WORDS[language]
    )


def _placed(tokens: list[Token], language: str) -> bool:
    """Whether the turn names a place: a capitalised name right after a preposition of place, or a
    street address (a number that opens a name: "540 El Camino Real")."""
    prepositions = PLACE_PREPOSITIONS[language]
    for i, token in enumerate(tokens):
        if token.norm not in prepositions:
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].norm in _ARTICLES:
            j += 1
        if j < len(tokens) and _proper(tokens[j], tokens[j - 1], language):
            return True
    return any(
        a.kind == "number" and _proper(b, a, language)
        for a, b in zip(tokens, tokens[1:], strict=False)
    )


def _named_which(
    tokens: list[Token], found: list[tuple[Token, str]], tool: CatalogueTool, language: str
) -> bool:
    """Whether a word right after the tool's thing says which one: "a recipe for feijoada", "member zed"."""
    # words that are not a value's: the tool's own words and its parameters' ("movie tickets" names
    # number_of_tickets), and numbers written as words
    common = lx.FUNCTION_WORDS[language] | lx.NUMBER_WORDS[language].keys()
    which = WHICH_PREPOSITIONS[language]
    things = {*tool.nouns, *tool.adjectives}
    named = things | {w for p in tool.params for w in p.words}
    nouns = {token.index: noun for token, noun in found}
    for token, noun in found:
        if noun not in things:
            continue
        j = token.index + 1
        if j < len(tokens) and tokens[j].norm in which:
            j += 1
        if j < len(tokens) and tokens[j].norm in _ARTICLES:
            j += 1
        after = tokens[j] if j < len(tokens) else None
        if (
            after is not None
            and after.kind == "word"
            and after.norm not in common
            and nouns.get(after.index, singular(after.norm)) not in named
        ):
            return True
    return False


def _written_as(param: Param) -> frozenset[str] | None:
    """The token kinds a link or address parameter's value is written in, by its name's last word."""
    return _ADDRESS_KINDS.get(param.words[-1]) if param.words else None


def _offers(
    tool: CatalogueTool, tokens: list[Token], found: list[tuple[Token, str]], language: str
) -> bool:
    """Whether the turn offers a candidate for any value the tool reads (flags aside): a token of the
    kind the parameter takes, bound or not (a city the format refuses is still offered)."""
    turn = _Offered(tool, tokens, found, language)
    for param in tool.params:
        if param.kind == "flag":
            continue
        if turn.of_its_kind(param):
            return True
        if _read_in_words(param) and turn.names_which():
            return True
    return False


def _read_in_words(param: Param) -> bool:
    """A required string a word can say which thing is meant by: no time, no identifier, no list
    of values, and no unlisted link or address (those are offered only as one)."""
    if param.kind == "destination" and _written_as(param) and not (param.enum or param.known):
        return False
    return (
        param.required
        and param.type == "string"
        and param.kind not in ("time", "identifier")
        and not param.enum
    )


class _Offered:
    """The candidates a turn offers, read once per turn; the costlier readings (names, which thing)
    only when a parameter asks, and then once."""

    def __init__(
        self,
        tool: CatalogueTool,
        tokens: list[Token],
        found: list[tuple[Token, str]],
        language: str,
    ):
        self.tool, self.tokens, self.found, self.language = tool, tokens, found, language
        self.kinds = {t.kind for t in tokens}
        self.words = {t.norm for t in tokens if t.kind == "word"}
        self.text = " ".join(t.norm for t in tokens)
        self._proper: bool | None = None  # a pair of tokens at a time
        self._which: bool | None = None

    def of_its_kind(self, param: Param) -> bool:
        """A token of the kind the parameter takes: one of its listed values, a place, a time, a
        link, a number, or (for any other required value) a name or a value written as one."""
        listed = (*param.enum, *param.known)
        if listed:
            return any(v and v.lower() in self.text for v in listed)
        if not param.required:
            return False  # a value an optional parameter might take, beside none of the required, is no sign
        if PLACE_WORDS & {*param.words, *param.described} and param.type == "string":
            return _placed(self.tokens, self.language)
        if param.kind == "time" or param.date_format:
            return bool(self.kinds & _TIME_KINDS or self.words & _DAYS[self.language])
        if param.kind == "destination" and (written := _written_as(param)):
            # a link or an address is offered only as one: a name, a number or a word that says
            # which thing is meant is no URL
            return bool(self.kinds & written)
        if param.type in ("number", "integer") or param.kind in ("amount", "count"):
            return bool(self.kinds & _NUMBER_KINDS)
        return self.names() or bool(self.kinds & VALUE_KINDS)

    def names(self) -> bool:
        if self._proper is None:
            tokens = self.tokens
            self._proper = any(
                _proper(t, b, self.language) for b, t in zip(tokens, tokens[1:], strict=False)
            )
        return self._proper

    def names_which(self) -> bool:
        """A word saying which thing is meant, in words."""
        if self._which is None:
            self._which = _named_which(self.tokens, self.found, self.tool, self.language)
        return self._which


def _names_only_the_tool(
    tool: CatalogueTool,
    tokens: list[Token],
    found: list[tuple[Token, str]],
    action: str | None,
    verb: set[int],
    language: str,
) -> bool:
    """Whether every content word of the turn is a word of the tool's name ("view member" for
    view_member, "encontre balsas" for find_ferries): the turn calls that tool by its name, and
    what it lacks is only its values."""
    own = {*tool.nouns, *tool.adjectives, *tool.namespace, tool.verb}
    nouns = {token.index: noun for token, noun in found}
    function = lx.FUNCTION_WORDS[language]
    content = [t for t in tokens if t.kind == "word" and t.norm not in function]
    return bool(content) and all(
        (t.index in verb and action == tool.action) or nouns.get(t.index, singular(t.norm)) in own
        for t in content
    )


def tool_unsure(
    tool: CatalogueTool,
    tokens: list[Token],
    found: list[tuple[Token, str]],
    action: str | None,
    verb: set[int],
    language: str,
    through_value: bool = False,
) -> bool:
    """Whether a tool that needs values is only guessed at: the turn names the kind of thing it does,
    by a reading verb or none, and gives nothing the tool reads (see the module's docstring).
    through_value: the tool was reached by a thing one of its parameters reads, not by its own."""
    if not any(p.required and p.kind != "flag" for p in tool.params):
        return False
    if action is not None and lx.ACTIONS.get(action) != "read" and action == tool.action:
        return False
    if through_value:
        # "the parcel" reaches assign_courier only through parcel_id: with that value unbound, the
        # turn names what the tool reads by, not what it does, and a name elsewhere in it is no sign
        return True
    if _names_only_the_tool(tool, tokens, found, action, verb, language):
        return False
    return not _offers(tool, tokens, found, language)
