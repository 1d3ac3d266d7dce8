"""Values the schema writes out: where a turn names one of them, the value is bound as the schema
writes it, whole.

A parameter's `enum`, its `x-known-values` and the values its description quotes as the ones it takes
say how a value is written. The turn may write one of several words ("lake como" for 'Lake Como'),
and it may misspell one by a letter or two ("turqoise"): both are that value, written the schema's way.
Nothing else is normalised: a value the schema does not write out is bound as the turn wrote it.
A misspelling is read only against values of five letters or more, and only where one value is
closest: two as close are asked about.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import lru_cache

from server.router import lexicon as lx
from server.router.tokens import Token, fold, tokenize

# How alike a misspelt value and the schema's must be (difflib's ratio), and the shortest value read so
CLOSE = 0.85
SHORTEST = 5
_KINDS = frozenset({"word", "handle", "quoted"})


@lru_cache(maxsize=8192)
def value_words(value: str, language: str) -> tuple[str, ...]:
    """A value's words as a turn's would be read: 'Lake Como' is (lake, como), '@ana' is (ana,)."""
    return tuple(t.norm.lstrip("@") for t in tokenize(value, language) if t.kind != "punct")


def _windows(tokens: list[Token], used: set[int], size: int) -> list[list[Token]]:
    """Runs of `size` tokens written one after another, none of them taken yet."""
    runs: list[list[Token]] = []
    stretch: list[Token] = []  # the tokens, one after another, that could be part of a value
    for token in [*tokens, None]:
        if (
            token is not None
            and token.kind in _KINDS
            and token.index not in used
            and (not stretch or stretch[-1].index + 1 == token.index)
        ):
            stretch.append(token)
            continue
        runs.extend(stretch[i : i + size] for i in range(len(stretch) - size + 1))
        stretch = (
            [token]
            if token is not None and token.kind in _KINDS and token.index not in used
            else []
        )
    return runs


def _norm(token: Token) -> str:
    """A token as a value's word: a handle without its @, a name without its possessive ("ana's")."""
    norm = token.norm.lstrip("@")
    return norm[:-2] if norm.endswith(("'s", "’s")) and len(norm) > 3 else norm


def written(
    tokens: list[Token], values: tuple[str, ...], used: set[int], language: str
) -> dict[str, list[Token]]:
    """The values the turn writes whole, each with its tokens: all its words in a row (or a quote of
    it), in any case. Two values that share a word are both found; the caller asks about two."""
    found: dict[str, list[Token]] = {}
    for value in values:
        words = value_words(value, language)
        if not words:
            continue
        for run in _windows(tokens, used, len(words)):
            if tuple(_norm(t) for t in run) == words:
                found.setdefault(value, run)
                break
        else:
            for token in tokens:
                if token.kind == "quoted" and token.index not in used and token.norm == fold(value):
                    found.setdefault(value, [token])
                    break
    # a value inside a longer one found ("Como" inside "Lake Como") is that one's part
    inside = {
        v
        for v, run in found.items()
        for w, other in found.items()
        if w != v and len(other) > len(run) and {t.index for t in run} <= {t.index for t in other}
    }
    return {v: run for v, run in found.items() if v not in inside}


def misspelt(
    tokens: list[Token], values: tuple[str, ...], used: set[int], language: str
) -> dict[str, list[Token]]:
    """The one value the turn writes with a letter or two wrong ("turqoise" for 'turquoise'); {} where
    none is that close, and every value as close where two are (the caller asks). A misspelling keeps
    its first letter and its length within two: only such runs are compared letter by letter."""
    function = lx.FUNCTION_WORDS[language]
    typed_runs: dict[int, dict[str, list[tuple[str, list[Token]]]]] = {}  # by size, first letter
    scored: list[tuple[float, str, list[Token]]] = []
    for value in values:
        words = value_words(value, language)
        text = " ".join(words)
        if len(text) < SHORTEST:
            continue
        by_first = typed_runs.get(len(words))
        if by_first is None:
            by_first = typed_runs[len(words)] = {}
            for run in _windows(tokens, used, len(words)):
                if run[0].norm.isalpha() and run[0].norm not in function:
                    typed = run[0].norm if len(run) == 1 else " ".join(_norm(t) for t in run)
                    by_first.setdefault(typed[0], []).append((typed, run))
        size = len(text)
        for typed, run in by_first.get(text[0], ()):
            if abs(len(typed) - size) > 2 or typed == text:
                continue
            matcher = SequenceMatcher(None, typed, text)
            if matcher.quick_ratio() >= CLOSE and (ratio := matcher.ratio()) >= CLOSE:
                scored.append((ratio, value, run))
    if not scored:
        return {}
    best = max(ratio for ratio, _, _ in scored)
    return {value: run for ratio, value, run in scored if ratio == best}
