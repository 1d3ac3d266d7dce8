"""Reading a tool's name: its words, its verb wherever it sits, the thing it names, and the qualifiers.

`soccer_stat.get_player_stats` is the verb get, the thing stat, qualified by player, in the
namespace soccer stat; `lawsuit_details.find` is find over the lawsuit; `Events_3_FindEvents`
is find over events; `travel_itinerary_generator` generates an itinerary; `share_event_public`
shares an event, public. Names are split on dots, underscores, hyphens, camelCase and digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from server.router import lexicon as lx

_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)


# English plurals not made by an ending, and words in -ie whose -ies is not -y (movies, cookies)
IRREGULAR = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "analyses": "analysis",
    "criteria": "criterion",
    "phenomena": "phenomenon",
}


@lru_cache(maxsize=8192)
def singular(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("ie"):
        return (
            word[:-2] + "y"
        )  # movie and movies, cookie and cookies: one key, as -ies is read as -y
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def split_words(name: str) -> list[str]:
    """snake_case, dotted.names, kebab-case and camelCase as lowercase words; digits stand alone."""
    return list(_split(name))


def name_words(name: str) -> tuple[str, ...]:
    """split_words as one tuple, kept (one object however often a name is read)."""
    return _split(name)


_SEPARATORS = re.compile(r"[\s._\-/:]+")


@lru_cache(maxsize=16384)
def _split(name: str) -> tuple[str, ...]:
    return tuple(w for w in _SEPARATORS.split(_CAMEL.sub(" ", name).lower()) if w)


@dataclass(frozen=True)
class ParsedName:
    action: str | None  # the canonical action of the name's verb, None when it has no verb
    verb: str | None  # the word that said it
    head: str | None  # the thing the tool is about
    qualifiers: tuple[str, ...]  # the other words of its own name (player in get_player_stats)
    namespace: tuple[str, ...]  # words before the last dot, less any verb


def _verb_at(words: list[str]) -> int | None:
    for i, word in enumerate(words):
        if word in lx.TOOL_VERBS:
            return i
    for i, word in enumerate(words):
        if word in lx.TOOL_VERB_NOUNS:
            return i
    return None


def _head(words: list[str]) -> tuple[str | None, tuple[str, ...]]:
    """The thing a run of name words names: the last noun before any preposition (rate in
    exchange_rate_with_fee); adjectives (public, nearby) and digits are never the thing."""
    content = [w for w in words if not w.isdigit()]
    before = []
    for word in content:
        if word in lx.NAME_PREPOSITIONS:
            break
        before.append(word)
    nouns = [w for w in before if w not in lx.NAME_ADJECTIVES]
    if (
        len(nouns) > 1
    ):  # hotel_booking, recipe_finder: the booking and the finder are the verb's, the thing is first
        nouns = [w for w in nouns if w not in lx.TOOL_VERB_NOUNS] or nouns
    if not nouns:
        return None, tuple(
            dict.fromkeys(singular(w) for w in content if w not in lx.NAME_PREPOSITIONS)
        )
    head = singular(nouns[-1])
    others = [singular(w) for w in content if w not in lx.NAME_PREPOSITIONS]
    return head, tuple(dict.fromkeys(w for w in others if w != head))


def parse_name(name: str) -> ParsedName:
    dotted = name.rsplit(".", 1)
    local = split_words(dotted[-1])
    namespace = split_words(dotted[0]) if len(dotted) == 2 else []
    at = _verb_at(local)
    where = local
    if at is None and namespace:
        at = _verb_at(namespace)
        where = namespace if at is not None else local
    verb = where[at] if at is not None else None
    action = (lx.TOOL_VERBS.get(verb) or lx.TOOL_VERB_NOUNS.get(verb)) if verb else None
    if verb == "hand" and at is not None and at + 1 < len(where) and where[at + 1] == "off":
        where = where[: at + 1] + where[at + 2 :]
    rest = [w for i, w in enumerate(where) if i != at and w != verb]
    if where is namespace:
        namespace, rest = rest, local
    head, qualifiers = _head(rest)
    if head is None and namespace:
        # restaurant.find_nearby: the thing is the namespace's
        head, more = _head(namespace)
        qualifiers = tuple(dict.fromkeys(qualifiers + more))
        namespace = []
    namespace_words = tuple(
        singular(w) for w in namespace if w not in lx.NAME_PREPOSITIONS and not w.isdigit()
    )
    return ParsedName(
        action, verb, head, qualifiers, tuple(w for w in namespace_words if w != head)
    )
