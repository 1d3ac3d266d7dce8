"""Text as people read it: what every check, match and flag compares, whatever was typed.

`readable` is the one normalisation: Unicode NFKC (full-width letters, ligatures and compatibility
forms become plain ones), invisible format characters removed (zero-width joiners and spaces, bidi
overrides and isolates, soft hyphens), and letters of other scripts that look like Latin ones mapped
to them, from Unicode's confusables table (shipped by `confusable-homoglyphs`). Stored text keeps
what was typed; `invisible` says which characters a person would not see.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def _lookalikes() -> dict[int, str]:
    """Non-ASCII letters that look like an ASCII letter, mapped to it (digits and punctuation are left
    alone: a look-alike of "0" is no letter, and "500" must stay a number)."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    table: dict[int, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        for glyph in glyphs:
            target = glyph["c"]
            if len(target) == 1 and target.isascii() and target.isalpha():
                table[ord(char)] = target.lower()
                break
    return table


def _is_invisible(ch: str) -> bool:
    return (
        unicodedata.category(ch) == "Cf"
    )  # ZWSP, ZWJ, ZWNJ, LRM/RLM, LRE…PDI, BOM, soft hyphen, tags


def invisible(text: str) -> list[str]:
    """The invisible format characters in `text`, by name (for the person approving a note)."""
    return sorted({unicodedata.name(ch, f"U+{ord(ch):04X}") for ch in text if _is_invisible(ch)})


def lookalikes(text: str) -> list[str]:
    """Letters of another script in `text` that pass for Latin ones, by name."""
    table = _lookalikes()
    return sorted(
        {
            unicodedata.name(ch, f"U+{ord(ch):04X}")
            for ch in unicodedata.normalize("NFKC", text)
            if ord(ch) in table
        }
    )


def visible(text: str) -> str:
    """`text` as typed, less the characters nobody sees (what an answer may quote of a note)."""
    return text if text.isascii() else "".join(ch for ch in text if not _is_invisible(ch))


def readable(text: str) -> str:
    """NFKC, no invisible characters, look-alike letters as the Latin ones they pass for."""
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = "".join(ch for ch in text if not _is_invisible(ch)).translate(_lookalikes())
    return text


_PUNCT = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "\u00b4": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2026": ".",
    }
)


def normalize(text: str) -> str:
    """Readable, casefolded, accents kept (Spanish "aceptó" is past, "acepto" is present), quotes and dashes plain."""
    return unicodedata.normalize("NFC", readable(text).casefold().translate(_PUNCT))


def fold(text: str) -> str:
    """Casefolded without accents: how words are compared when the accent does not matter."""
    decomposed = unicodedata.normalize("NFD", normalize(text))
    if decomposed.isascii():  # no combining mark is ASCII: nothing to take out
        return decomposed
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def acc(word: str) -> str:
    """A plain word as a regex that also matches it typed with accents (or without)."""
    classes = {
        "a": "[aáàâã]",
        "e": "[eéê]",
        "i": "[ií]",
        "o": "[oóôõ]",
        "u": "[uúü]",
        "c": "[cç]",
        "n": "[nñ]",
    }
    return "".join(
        classes.get(ch, re.escape(ch) if not ch.isalnum() and ch not in "|()?* " else ch)
        for ch in word
    )


def words(*words: str) -> str:
    return "(?:" + "|".join(acc(w) for w in words) + ")"


_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+|(?<=[.!?])(?=[¡¿])")
_FULL_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|(?<=[.!?])(?=[¡¿])")


def sentences(text: str, colons: bool = True) -> list[str]:
    splitter = _SENTENCE if colons else _FULL_SENTENCE
    return [s.strip() for s in splitter.split(normalize(text)) if s.strip()]


_PT = set(
    "nao não voce você vc ela ele uma com para pra esta está é são sao tambem também já ja isso essa esse "
    "muito pela pelo do da dos das ao às aos tem foi vai então entao até ate seu sua nos na no".split()
)
_ES = set(
    "el la los las una con para está es son también ya eso esa ese muy del al lo tiene fue va ella él "
    "usted y pero hasta entonces le su sus".split()
)


def language_of(sentence: str) -> str:
    """'pt', 'es' or 'en' for one sentence, by its function words (ties go to English rules)."""
    words = re.findall(r"[^\W\d_]+", sentence)
    pt = sum(w in _PT for w in words) + 2 * sum(w.endswith(("ção", "ções", "ão")) for w in words)
    es = sum(w in _ES for w in words) + 2 * sum(
        w.endswith(("ción", "ñ")) or "ñ" in w for w in words
    )
    if max(pt, es) < 2:
        return "en"
    return "pt" if pt >= es else "es"
