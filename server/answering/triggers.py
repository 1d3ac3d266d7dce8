"""Regular expressions searched only where they could match: each pattern's *triggers* are strings
that every match of it contains, read from the pattern's own parse tree (so there is no list of words
to keep in step with the patterns). A text that holds none of a pattern's triggers cannot match it,
so that pattern is not run on it; the answer is the one searching every pattern would give.

Why: the question screen runs on every ask, and Python's `re` tries each of a long alternation's
branches at every position of the text. A question holds the triggers of a few patterns at most, and
looking for a few hundred short strings with `in` costs less than one pass of the alternation.

A pattern whose triggers cannot be read (case-insensitive, a back-reference, nothing it must contain)
is searched every time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stubs describe the same modules under their old names
    import sre_constants as constants
    import sre_parse as parser
else:
    from re import _constants as constants
    from re import _parser as parser

MAX_STRINGS = 64  # an exact set larger than this is given up (its pieces' triggers still count)
_WIDTHLESS = (constants.AT, constants.ASSERT, constants.ASSERT_NOT)  # match no character
_REPEATS = (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT)
_UNREADABLE_FLAGS = re.IGNORECASE | re.LOCALE  # a literal would stand for several strings


@dataclass(frozen=True)
class _Read:
    """What a piece of a pattern matches, as far as it can be told."""

    exact: frozenset[str] | None = None  # every string it matches, when they are few
    needs: frozenset[str] | None = None  # strings one of which each of its matches contains


_NOTHING_KNOWN = _Read()


def _rank(strings: frozenset[str]) -> tuple[int, int]:
    """Longer triggers occur in fewer texts; of two sets as long, the smaller is the narrower."""
    return (min(map(len, strings)), -len(strings))


def _best(candidates: Iterable[frozenset[str] | None]) -> frozenset[str] | None:
    usable = [c for c in candidates if c and "" not in c]
    return max(usable, key=_rank) if usable else None


def _sequence(items: Iterable[tuple[constants._NamedIntConstant, object]]) -> _Read:
    """One piece after another: a match holds a match of each, so any piece's triggers are the
    sequence's; runs of exact pieces are joined into longer strings."""
    candidates: list[frozenset[str] | None] = []
    run: frozenset[str] = frozenset({""})
    whole: frozenset[str] | None = frozenset({""})
    for op, argument in items:
        piece = _item(op, argument)
        if piece.exact is None:
            candidates += [run, piece.needs]
            run, whole = frozenset({""}), None
            continue
        if len(run) * len(piece.exact) > MAX_STRINGS:
            candidates.append(run)
            run = piece.exact
        else:
            run = _joined(run, piece.exact)
        if whole is not None:
            fits = len(whole) * len(piece.exact) <= MAX_STRINGS
            whole = _joined(whole, piece.exact) if fits else None
    candidates.append(run)
    return _Read(whole, _best(candidates))


def _joined(left: frozenset[str], right: frozenset[str]) -> frozenset[str]:
    return frozenset(a + b for a in left for b in right)


def _item(op: constants._NamedIntConstant, argument: object) -> _Read:
    if op is constants.LITERAL:
        assert isinstance(argument, int)
        return _Read(frozenset({chr(argument)}), frozenset({chr(argument)}))
    if op in _WIDTHLESS:
        return _Read(frozenset({""}))
    if op is constants.IN:
        assert isinstance(argument, list)
        chars = _characters(argument)
        return _Read(chars, chars) if chars is not None else _NOTHING_KNOWN
    if op is constants.SUBPATTERN:
        assert isinstance(argument, tuple)
        _group, add_flags, del_flags, inner = argument
        if add_flags or del_flags:
            return _NOTHING_KNOWN
        return _sequence(inner)
    if op is constants.ATOMIC_GROUP:
        return _sequence(argument)  # type: ignore[arg-type]
    if op is constants.BRANCH:
        assert isinstance(argument, tuple)
        return _branches([_sequence(branch) for branch in argument[1]])
    if op in _REPEATS:
        assert isinstance(argument, tuple)
        return _repeat(*argument)
    return _NOTHING_KNOWN  # any character, a category, a back-reference, …


def _repeat(
    low: int, high: int, inner: Iterable[tuple[constants._NamedIntConstant, object]]
) -> _Read:
    """`inner` at least `low` and at most `high` times."""
    read = _sequence(inner)
    if low == 0:  # it may match nothing: it holds no trigger of its own
        if high == 1 and read.exact is not None:
            return _Read(read.exact | {""})
        return _NOTHING_KNOWN
    return _Read(read.exact if low == high == 1 else None, _best([read.needs, read.exact]))


def _branches(reads: Sequence[_Read]) -> _Read:
    """One of several: a match holds one branch's match, so the triggers are all branches' together."""
    exact: frozenset[str] | None = None
    if all(read.exact is not None for read in reads):
        exact = frozenset().union(*(read.exact or () for read in reads))
        exact = exact if len(exact) <= MAX_STRINGS else None
    each = [_best([read.needs, read.exact]) for read in reads]
    needs = None if any(n is None for n in each) else frozenset().union(*(n or () for n in each))
    return _Read(exact, needs)


def _characters(members: list[tuple[constants._NamedIntConstant, object]]) -> frozenset[str] | None:
    """The characters a class matches, when it lists them (no negation, no category, few enough)."""
    chars: set[str] = set()
    for op, argument in members:
        if op is constants.LITERAL:
            assert isinstance(argument, int)
            chars.add(chr(argument))
        elif op is constants.RANGE:
            assert isinstance(argument, tuple)
            low, high = argument
            if high - low >= MAX_STRINGS:
                return None
            chars.update(chr(code) for code in range(low, high + 1))
        else:
            return None
    return frozenset(chars) if chars and len(chars) <= MAX_STRINGS else None


def triggers(pattern: str) -> frozenset[str] | None:
    """Strings one of which every match of `pattern` contains; None when that cannot be told."""
    parsed = parser.parse(pattern)
    if parsed.state.flags & _UNREADABLE_FLAGS:
        return None
    found = _sequence(parsed.data).needs
    if found is None:
        return None
    # a text that holds "rates" holds "rate": the longer one adds nothing
    return frozenset(s for s in found if not any(t != s and t in s for t in found))


class Triggered:
    """Patterns searched as one: whether any of them matches a text, each run only on a text holding
    one of its triggers. Same answer as `any(re.search(p, text) for p in patterns)`."""

    def __init__(self, patterns: Sequence[str]):
        self.patterns = tuple(patterns)
        read = [(re.compile(pattern), triggers(pattern)) for pattern in self.patterns]
        self._always = tuple(compiled for compiled, found in read if found is None)
        every = {s for _, found in read for s in found or ()}
        # looked for in each text: those holding no other (a text holding "reservar" holds "reserva")
        self._strings = tuple(sorted(s for s in every if not any(t != s and t in s for t in every)))
        # each string's patterns, in the order given (only a string's presence is looked at)
        runs: dict[str, list[int]] = {s: [] for s in self._strings}
        for position, (_, found) in enumerate(read):
            for string in self._strings:
                if found is not None and any(string in s for s in found):
                    runs[string].append(position)
        self._compiled = tuple(compiled for compiled, _ in read)
        self._runs = {string: tuple(positions) for string, positions in runs.items()}

    def search(self, text: str) -> bool:
        if self._always and any(compiled.search(text) for compiled in self._always):
            return True
        present = [s for s in self._strings if s in text]
        if not present:
            return False
        positions = sorted({p for s in present for p in self._runs[s]})
        return any(self._compiled[p].search(text) for p in positions)
