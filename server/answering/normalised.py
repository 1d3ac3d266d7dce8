"""Text compared as people read it, for the matcher and the question screen: #25's one normalisation
(`text.fold`: NFKC, invisible characters removed, look-alike letters mapped, case folded, accents folded)."""

from __future__ import annotations

from server.answering.text import fold as normalise

__all__ = ["normalise"]
