"""Text compared as people read it: what the matcher and the commitment screen see of a question."""

from __future__ import annotations

import unicodedata

_LOOKALIKES = str.maketrans({
    # Cyrillic and Greek letters that look Latin: "раy" is "pay" to a reader, so it is here
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
    "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "α": "a", "ο": "o", "ρ": "p", "ν": "v", "τ": "t", "ι": "i",
    "κ": "k", "υ": "u", "ε": "e", "\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'",
})


def normalise(text: str) -> str:
    """NFKC, format controls (zero-width, bidirectional) removed, case folded, look-alikes mapped, accents folded."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = text.casefold().translate(_LOOKALIKES)
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn"))
