"""Text compared as people read it, for the matcher and the question screen: #25's one normalisation
(`text.fold`: NFKC, invisible characters removed, look-alike letters mapped, case folded, accents folded).

An ask's question is normalised by the screen, the matcher (twice) and the kinds of answer in turn:
remembered, it is normalised once. `fold` is a pure function of the string; the cache is bounded."""

from __future__ import annotations

from functools import lru_cache

from server.answering.text import fold

__all__ = ["normalise"]

normalise = lru_cache(maxsize=1024)(fold)
