"""Text as the output checks read it: one apostrophe, folded accents, sentences, a language guess."""

from __future__ import annotations

import re
import unicodedata

_PUNCT = str.maketrans({"\u2019": "'", "\u2018": "'", "\u00b4": "'", "`": "'", "\u201c": '"', "\u201d": '"',
                        "\u00ab": '"', "\u00bb": '"', "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ",
                        "\u202f": " ", "\u2026": "."})


def normalize(text: str) -> str:
    """Casefolded, accents kept (Spanish "aceptó" is past, "acepto" is present), quotes and dashes plain."""
    return unicodedata.normalize("NFC", text).casefold().translate(_PUNCT)


def fold(text: str) -> str:
    """Casefolded without accents: how words are compared when the accent does not matter."""
    decomposed = unicodedata.normalize("NFD", normalize(text))
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")


def acc(word: str) -> str:
    """A plain word as a regex that also matches it typed with accents (or without)."""
    classes = {"a": "[aáàâã]", "e": "[eéê]", "i": "[ií]", "o": "[oóôõ]", "u": "[uúü]", "c": "[cç]", "n": "[nñ]"}
    return "".join(classes.get(ch, re.escape(ch) if not ch.isalnum() and ch not in "|()?* " else ch)
                   for ch in word)


def words(*words: str) -> str:
    return "(?:" + "|".join(acc(w) for w in words) + ")"


_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+|(?<=[.!?])(?=[¡¿])")
_FULL_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|(?<=[.!?])(?=[¡¿])")


def sentences(text: str, colons: bool = True) -> list[str]:
    splitter = _SENTENCE if colons else _FULL_SENTENCE
    return [s.strip() for s in splitter.split(normalize(text)) if s.strip()]


_PT = set("nao não voce você vc ela ele uma com para pra esta está é são sao tambem também já ja isso essa esse "
          "muito pela pelo do da dos das ao às aos tem foi vai então entao até ate seu sua nos na no".split())
_ES = set("el la los las una con para está es son también ya eso esa ese muy del al lo tiene fue va ella él "
          "usted y pero hasta entonces le su sus".split())


def language_of(sentence: str) -> str:
    """'pt', 'es' or 'en' for one sentence, by its function words (ties go to English rules)."""
    words = re.findall(r"[^\W\d_]+", sentence)
    pt = sum(w in _PT for w in words) + 2 * sum(w.endswith(("ção", "ções", "ão")) for w in words)
    es = sum(w in _ES for w in words) + 2 * sum(w.endswith(("ción", "ñ")) or "ñ" in w for w in words)
    if max(pt, es) < 2:
        return "en"
    return "pt" if pt >= es else "es"
