"""What a tool's description says, read as text: the words it describes a parameter by (the
generic ones aside), the values it lists or gives as examples, how it takes a percent, and the
thing the tool acts on (its purpose: "Discover therapists in a city" acts on therapists).
"""

from __future__ import annotations

import re

from server.router import lexicon as lx
from server.router.names import singular
from server.router.tokens import fold

# Words a description uses for any parameter: they name none in particular.
GENERIC = frozenset(
    {
        "number",
        "value",
        "default",
        "given",
        "specified",
        "optional",
        "required",
        "type",
        "name",
        "numero",
        "valor",
        "the",
        "and",
        "for",
        "with",
        "which",
        "that",
        "this",
        "from",
        "into",
    }
)


def described_words(text: str) -> frozenset[str]:
    """The content words of a description, but the one after "per" ("compounded per year" is no count of years)."""
    text = re.sub(r"\b(?:per|por)\s+[a-z]+", " ", text.lower())
    return frozenset(singular(w) for w in re.findall(r"[a-z]{3,}", text)) - GENERIC


_QUOTED = re.compile(r"'([^'\s][^']{0,30})'|\"([^\"\s][^\"]{0,30})\"")
_EXAMPLE = re.compile(
    r"\be\.?g\b|example|such as|\blike\b|format|\bi\.?e\b|\bpor exemplo|\bcomo\b", re.I
)
_FRACTION = re.compile(
    r"\bdecimal\b(?!\s+(?:place|precision|digit))|\bfraction\b|\b0\s*(?:-|to|a)\s*1\b"
    r"|\bfracao\b",
    re.I,
)
_PERCENT = re.compile(r"\bpercent|\bporcent", re.I)


def listed_values(text: str) -> tuple[str, ...]:
    """The values a description quotes as the ones a parameter takes: two or more, and not examples."""
    if _EXAMPLE.search(text):
        return ()
    text = re.split(r"\bdefault|\bpadr[aã]o", text, flags=re.I)[
        0
    ]  # "Default is ['a', 'b']" lists no choices
    values = tuple(dict.fromkeys(a or b for a, b in _QUOTED.findall(text)))
    return values if len(values) >= 2 else ()


_EXAMPLES = re.compile(
    r"(?:\be\.?g\.?|for example|such as|\blike\b|por exemplo|como)[:,]?\s+((?:[^.;()]|\.(?=\d))*)",
    re.I,
)


def example_words(text: str) -> frozenset[str]:
    """The words of the examples a description gives: "e.g. vegan, gluten-free" gives vegan, gluten-free."""
    words: set[str] = set()
    for found in _EXAMPLES.findall(text):
        words.update(
            w
            for w in re.findall(r"[a-z][a-z-]{2,}", fold(found))
            if w not in GENERIC and w not in ("and", "or", "etc", "ou", "default", "is")
        )
    return frozenset(words)


def examples_as_written(text: str) -> tuple[str, ...]:
    """The one-word examples a description gives, as written: "e.g. 'Piano', 'Violin'" gives Piano, Violin.
    A value of several words is left out: one of its words alone is no value."""
    values: list[str] = []
    for found in _EXAMPLES.findall(text):
        quoted = [a or b for a, b in _QUOTED.findall(found)]
        items = quoted or re.split(r",|\bor\b|\band\b|\bou\b|\be\b", found)
        if not quoted and any(re.fullmatch(r"[A-Z]{2,3}", i.strip()) for i in items):
            continue  # "e.g. Denver, CO": one value written with a comma, not a list of two
        for item in items:
            item = item.strip().strip("'\"“”").strip()
            if re.fullmatch(r"[A-Za-z][A-Za-z-]{2,}", item) and item.lower() not in (
                "etc",
                "default",
            ):
                values.append(item)
    return tuple(dict.fromkeys(values))


def percent_form(text: str) -> str | None:
    """'as a decimal', 'from 0 to 1': a percent is given as a fraction; 'in percentage': as the number.
    A description that says both says neither."""
    fraction, percent = bool(_FRACTION.search(text)), bool(_PERCENT.search(text))
    if fraction and "%" in text:
        return "fraction"  # "5% is 0.05"
    if fraction != percent:
        return "fraction" if fraction else "percent"
    return None


_LEAD = frozenset(
    {
        "for",
        "a",
        "an",
        "the",
        "and",
        "or",
        "all",
        "any",
        "some",
        "up",
        "new",
        "out",
        "available",
        "specific",
        "specified",
        "given",
        "one",
        "more",
        "multiple",
        "relevant",
    }
)
_PHRASE_END = frozenset(
    {
        "that",
        "which",
        "who",
        "based",
        "with",
        "to",
        "by",
        "in",
        "on",
        "for",
        "from",
        "within",
        "using",
        "matching",
        "according",
        "at",
        "of",
        "as",
        "and",
        "or",
        "if",
        "whose",
        "where",
        "when",
        "via",
        "into",
        "under",
        "near",
        "around",
        "between",
        "across",
        "per",
        "is",
        "are",
    }
)
_CONTAINERS = frozenset(
    {
        "list",
        "set",
        "collection",
        "number",
        "detail",
        "details",
        "information",
        "info",
        "summary",
        "series",
        "group",
        "selection",
        "range",
        "variety",
        "catalog",
        "catalogue",
    }
)
_SUBJECTS = frozenset(
    {"this", "the", "a", "an", "function", "tool", "endpoint", "api", "method", "it", "that"}
)


def purpose_of(description: str) -> str | None:
    """The thing a description says its tool acts on: the last noun of the phrase after its first verb
    ("Discover therapists in a city": therapist; "Retrieves a list of songs": song); None where it
    does not open with a verb."""
    sentence = re.split(r"(?<=[a-z])\.\s|[.;:\n]", description.strip(), maxsplit=1)[0]
    words = re.findall(r"[A-Za-z][A-Za-z'-]*|,", sentence)
    i = 0
    while i < len(words) and words[i].lower() in _SUBJECTS:
        i += 1  # "This function retrieves …"
    if (
        i >= len(words)
        or not words[i][:1].isalpha()
        or words[i].lower() in _CONTAINERS
        or words[i].lower() in lx.NAME_ADJECTIVES
        or words[i].lower() in GENERIC
    ):
        return None  # "Data for the current user": a noun first, no verb to read the thing after
    i += 1  # the verb
    while i < len(words) and words[i].lower() in _LEAD:
        i += 1
    phrase: list[str] = []
    while i < len(words):
        word = words[i].lower()
        if word == "," or word in _PHRASE_END:
            if word == "of" and phrase and phrase[-1] in _CONTAINERS:
                phrase = []  # "a list of songs": the songs
                i += 1
                continue
            break
        phrase.append(word)
        i += 1
    while phrase and (phrase[-1].endswith("ly") or phrase[-1] in ("online", "now", "today")):
        phrase.pop()  # "discover movies online": the movies
    if not phrase or len(phrase) > 4:
        return None
    head = singular(phrase[-1])
    return head if len(head) > 2 and head not in _CONTAINERS and head not in GENERIC else None
