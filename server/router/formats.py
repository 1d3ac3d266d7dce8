"""The shapes a parameter's description asks its values in, read once when the catalogue is built.

Two readings, both from the description alone:
- a pattern of format letters: "formatted as 'YYYY-MM-DD'", "in 'HH:MM' 24-hour format", "MM/DD/YYYY";
- the shape its examples share: "formatted as 'City, State', e.g. 'New York, NY' or 'London, UK'" gives
  a name, a comma and a short capital code, so "New Delhi, India" is not written as the tool asks.

A value bound from the turn that fits none of the shapes is not run with: converting it would be a
guess (the turn's "today" is no date in YYYY-MM-DD, "India" is no code), so it is asked for instead.
Examples that do not share one shape, or whose only shape is a plain run of words, say nothing.
"""

from __future__ import annotations

import re

_FIELDS = {
    "YYYY": r"\d{4}",
    "YY": r"\d{2}",
    "MM": r"\d{1,2}",
    "DD": r"\d{1,2}",
    "HH": r"\d{1,2}",
    "hh": r"\d{1,2}",
    "mm": r"\d{2}",
    "SS": r"\d{2}",
    "ss": r"\d{2}",
}
_FIELD = "(?:YYYY|YY|MM|DD|HH|hh|mm|SS|ss)"
_LETTER_FORMAT = re.compile(rf"(?<![A-Za-z]){_FIELD}(?:[-/.: T]?{_FIELD})+(?![A-Za-z])")
_QUOTED = re.compile(r"'([^'\n]{1,40})'|\"([^\"\n]{1,40})\"")
_EXAMPLE = re.compile(
    r"\be\.?g\b|\bexamples?\b|\bsuch as\b|\bfor instance\b|\bpor exemplo\b|\bex\.", re.I
)
_FORMAT = re.compile(r"\bformat|\bformato\b", re.I)
_PIECE = re.compile(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]")


def _letters(pattern: str) -> str:
    """A regular expression for a pattern of format letters: YYYY-MM-DD as four digits, a dash, …"""
    out = ""
    for piece in re.findall(rf"{_FIELD}|.", pattern):
        out += _FIELDS.get(piece, re.escape(piece))
    return out


def shape(value: str) -> str:
    """A value's coarse shape: a run of words is W, a short all-capital code C, digits 9, punctuation as typed."""
    out: list[str] = []
    for piece in _PIECE.findall(value):
        if piece.isdigit():
            mark = "9"
        elif piece.isalpha():
            mark = "C" if piece.isupper() and len(piece) <= 3 else "W"
        else:
            mark = piece
        if not (mark == "W" and out and out[-1] == "W"):
            out.append(mark)
    return "".join(out)


def value_formats(description: str) -> tuple[str, ...]:
    """The regular expressions a value must match in full, as the description asks; () where it asks none."""
    if not description:
        return ()
    patterns = [_letters(p) for p in dict.fromkeys(_LETTER_FORMAT.findall(description))]
    if patterns:
        return tuple(patterns)
    # the examples after "e.g." ('New York, NY'), not the template before them ('City, State')
    marker = _EXAMPLE.search(description) or _FORMAT.search(description)
    if marker is None:
        return ()
    examples = [a or b for a, b in _QUOTED.findall(description[marker.end() :])]
    shapes = {shape(e) for e in examples if _LETTER_FORMAT.fullmatch(e) is None}
    if len(examples) < 1 or len(shapes) != 1:
        return ()
    (only,) = shapes
    if only in ("W", "C", "9", "") or len(examples) < 2 and "," not in only:
        return ()  # a word, a code or a number alone says no format a value must keep
    return ("shape:" + only,)


def fits(value: str, formats: tuple[str, ...]) -> bool:
    """Whether a value is written as one of the formats asks."""
    for fmt in formats:
        if fmt.startswith("shape:"):
            if shape(value) == fmt[6:]:
                return True
        elif re.fullmatch(fmt, value.strip()):
            return True
    return False
