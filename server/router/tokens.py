"""Tokens of a turn: words, numbers, money, dates, quotes, handles, emails, links, punctuation.

Portuguese is folded (no accents, informal spellings expanded) for lookup; values keep their text.
A turn is read with a tokenizer holding only the patterns its characters make possible, compiled
once at import: the same tokens as the whole pattern, at less cost per turn.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from server.router import lexicon as lx

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|"
    "apr|jun|jul|aug|sep|sept|oct|nov|dec|janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|"
    "setembro|outubro|novembro|dezembro"
)

# The token patterns, in the order they are tried; a turn's tokenizer holds only the patterns its
# characters make possible (no "@": no email or handle), which gives the same tokens, cheaper.
_PATTERNS = (
    ("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", r"@"),
    ("url", r"https?://\S+", r"://"),
    (
        "quoted",
        # straight, double curly and single curly quotes; an apostrophe inside a word stays in it
        r"\"[^\"]*\"|“[^”]*”|(?<!\w)'(?:[^']|'(?=\w)){2,}'(?!\w)|(?<!\w)‘(?:[^’]|’(?=\w)){2,}’(?!\w)",
        r"[\"“'‘]",
    ),
    (
        "date",
        r"\b\d{4}(?:-\d{1,2}-|/\d{1,2}/|\.\d{1,2}\.)\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}-\d{1,2}-\d{4}\b"
        rf"|\b\d{{1,2}}(?:st|nd|rd|th|º)?\s+(?:of\s+|de\s+)?(?i:{_MONTHS}),?\s+(?:de\s+)?\d{{4}}\b",
        r"\d[-/]\d|\d{4}",
    ),
    (
        "named_date",
        rf"(?i:(?=[jfmasond]))\b(?i:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",
        # (a month's first letter looked for first: most places fail there at once)
        r"(?i)(?=[jfmasond])\b(?:jan|feb|fev|mar|apr|abr|may|mai|jun|jul|aug|ago|sep|set|oct|out|nov|dec|dez)"
        r"[a-zç]*\.?\s+\d",
    ),
    ("handle", r"@[a-z][a-z0-9_-]{1,31}", r"@"),
    ("domain", r"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b(?!\.\w)", r"\.[a-z]{2}"),
    ("list", r"\[[^\[\]]{0,400}\]", r"\["),
    ("money", r"(?:R\$|US\$|\$|€|£)\s?\d+(?:[.,]\d+)*", r"[$€£]"),
    ("ordinal", r"\d+(?:st|nd|rd|th|º|ª|o|a)\b", r"\d"),
    (
        "code",
        r"\b\d+(?:-\d+)+\b(?!\.\d)",
        r"\d-\d",
    ),  # 098-293, 2019-2020: one value, never two numbers
    ("number", r"(?<![\w-])-?\d+(?:[.,]\d+)*(?:%)?|\d+(?:[.,]\d+)*(?:%)?", r"\d"),
    ("word", r"[^\W\d_](?:[\w'’-]*[^\W_])?", None),
    ("punct", r"[?!.,;:=]", None),
)
# The patterns a turn's characters can rule out, and the character that each one needs.
_NEEDS = {
    kind: re.compile(needs)
    for kind, _, needs in _PATTERNS
    if kind in ("email", "url", "handle", "domain", "money", "named_date") and needs is not None
}
# Patterns that can match where a word begins (a letter); without them, words are tried first.
_LETTER_STARTS = frozenset({"email", "url", "domain", "money", "named_date"})


def _tokenizer(kinds: tuple[str, ...]) -> re.Pattern[str]:
    order = [p for p in _PATTERNS if p[0] in kinds]
    # Where a letter is, only the letter-start patterns and the word can match; elsewhere the word
    # cannot. So the word is tried right after the last letter-start pattern this turn needs (first,
    # where it needs none), all else in its order: the same tokens, fewer patterns tried per word.
    word = [p for p in order if p[0] == "word"]
    order = [p for p in order if p[0] != "word"]
    last = max((i for i, p in enumerate(order) if p[0] in _LETTER_STARTS), default=-1)
    order[last + 1 : last + 1] = word
    # no token starts at a space: "(?=\S)" fails there at once, before any pattern is tried
    alternatives = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern, _ in order)
    return re.compile(rf"(?=\S)(?:{alternatives})", re.UNICODE)


def _variants() -> dict[tuple[str, ...], re.Pattern[str]]:
    """Every tokenizer a turn can need, compiled once at import rather than on a turn's time."""
    optional = list(_NEEDS)
    compiled = {}
    for mask in range(1 << len(optional)):
        left_out = {kind for bit, kind in enumerate(optional) if not mask & (1 << bit)}
        kinds = tuple(kind for kind, _, _ in _PATTERNS if kind not in left_out)
        compiled[kinds] = _tokenizer(kinds)
    return compiled


_TOKENIZERS = _variants()


_OPTIONAL = tuple(_NEEDS)
_BY_FLAGS = {
    tuple(kind in kinds for kind in _OPTIONAL): pattern for kinds, pattern in _TOKENIZERS.items()
}
# The patterns a turn may need, in _OPTIONAL's order, read from the characters each cannot match
# without (a plain character test first: most turns have no "@", "://", "$" or domain)
if _OPTIONAL != ("email", "url", "named_date", "handle", "domain", "money"):
    raise ImportError(f"_token_pattern reads the optional patterns in another order: {_OPTIONAL}")
_DOMAIN_NEEDS, _NAMED_DATE_NEEDS = _NEEDS["domain"], _NEEDS["named_date"]
_SPACE_DIGIT = re.compile(r"\s\d")


def _token_pattern(turn: str) -> re.Pattern[str]:
    at = "@" in turn
    domain = "." in turn and _DOMAIN_NEEDS.search(turn) is not None
    money = "$" in turn or "€" in turn or "£" in turn
    # a named date needs a space before a digit ("March 8"): looked for before the month's pattern
    named_date = (
        _SPACE_DIGIT.search(turn) is not None and _NAMED_DATE_NEEDS.search(turn) is not None
    )
    return _BY_FLAGS[(at, "://" in turn, named_date, at, domain, money)]


_TOKEN = _tokenizer(tuple(kind for kind, _, _ in _PATTERNS))
_DECIMAL = {"en": re.compile(r"\.\d{1,2}$"), "pt-BR": re.compile(r",\d{1,2}$")}


def fold(text: str) -> str:
    """Lowercase without accents: how Portuguese is compared, with or without accents typed."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


_DIGIT = re.compile(r"\d")


@dataclass(slots=True)
class Token:
    text: str  # as typed
    norm: str  # folded, informal spelling expanded
    kind: str  # word, number, decimal, money, ordinal, date, email, url, domain, list, quoted, handle, punct
    index: int
    glued: bool = (
        False  # typed with no space after the token before it (the cm of "6cm", the pm of "12pm")
    )


def tokenize(turn: str, language: str) -> list[Token]:
    tokens: list[Token] = []
    informal = lx.INFORMAL[language]
    end = -1
    decimal = _DECIMAL[language]
    decimal_sep = "," if language == "pt-BR" else "."
    counted = lx.NUMBER_WORDS[language] if not _DIGIT.search(turn) else {}
    append = tokens.append
    for match in _token_pattern(turn).finditer(turn):
        kind = match.lastgroup or "word"
        start, stop = match.span()
        text = turn[start:stop]
        glued, end = start == end, stop
        if text.isascii():
            norm = text.lower()
            if kind == "word" and norm not in informal and norm not in counted:
                # the common case: a plain word (ASCII text holds no ’ to straighten)
                append(Token(text, norm, "word", len(tokens), glued))
                continue
        else:
            norm = fold(text)
        kind = (
            "date" if kind == "named_date" else kind
        )  # "January 1, 2021": a date whose month is a name
        kind = (
            "number" if kind == "code" else kind
        )  # a number as typed; a number parameter refuses its dashes
        if kind == "word":
            if "’" in norm:
                norm = norm.replace("’", "'")
            expanded = informal.get(norm)
            if expanded and " " in expanded:
                for part in expanded.split():
                    tokens.append(Token(text, part, "word", len(tokens), glued))
                continue
            norm = expanded or norm
            if norm in counted:
                # "for the next three days": a number in words, where the turn writes none in digits
                text, norm, kind = counted[norm], counted[norm], "number"
        elif kind == "number":
            kind = (
                "decimal"
                if (decimal_sep in text and decimal.search(text)) or "%" in text
                else "number"
            )
        elif kind == "quoted":
            text = text[1:-1]
            norm = fold(text)
        tokens.append(Token(text, norm, kind, len(tokens), glued))
    return tokens


def joined(run: list[Token]) -> str:
    """The phrase as typed: a space between words, none before a comma or a period glued to a word."""
    text = ""
    for i, token in enumerate(run):
        text += (
            ""
            if i == 0
            or token.norm == ","
            or (token.glued and (token.norm == "." or run[i - 1].norm == "."))
            else " "
        ) + token.text
    return text
