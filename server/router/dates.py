"""Dates as a parameter's description says to write them.

A description that names a format ("in the format YYYY-MM-DD", "MM/DD/YYYY", "month-day-year") gets the turn's date in
that format, where the date reads one way only: a month named in words, a four-digit year first, or a
day over 12. "03/04/2025" is March 4th or April 3rd, so it is asked about unless the format orders its
fields as the turn wrote them. A description that names no format gets the date as typed.
"""

from __future__ import annotations

import re

from server.router.tokens import fold

_FORMAT = re.compile(r"\b(YYYY|MM|DD)([-/.])(YYYY|MM|DD)\2(YYYY|MM|DD)\b", re.I)
_FIELD_NAMES = {"year": "YYYY", "month": "MM", "day": "DD", "ano": "YYYY", "mes": "MM", "dia": "DD"}
_WORD_FORMAT = re.compile(
    r"\b(year|month|day|ano|mes|dia)([-/.])(year|month|day|ano|mes|dia)\2(year|month|day|ano|mes|dia)\b"
)
_MONTH_NAMES = {
    "jan": 1,
    "january": 1,
    "janeiro": 1,
    "feb": 2,
    "february": 2,
    "fev": 2,
    "fevereiro": 2,
    "mar": 3,
    "march": 3,
    "marco": 3,
    "apr": 4,
    "april": 4,
    "abr": 4,
    "abril": 4,
    "may": 5,
    "mai": 5,
    "maio": 5,
    "jun": 6,
    "june": 6,
    "junho": 6,
    "jul": 7,
    "july": 7,
    "julho": 7,
    "aug": 8,
    "august": 8,
    "ago": 8,
    "agosto": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "set": 9,
    "setembro": 9,
    "oct": 10,
    "october": 10,
    "out": 10,
    "outubro": 10,
    "nov": 11,
    "november": 11,
    "novembro": 11,
    "dec": 12,
    "december": 12,
    "dez": 12,
    "dezembro": 12,
}


def date_format(description: str) -> tuple[tuple[str, ...], str] | None:
    """The order of fields and the separator a description asks dates in: (("YYYY", "MM", "DD"), "-"),
    from "YYYY-MM-DD" or from the fields' names ("month-day-year", "dia/mes/ano")."""
    found = _FORMAT.search(description or "")
    if found:
        fields = tuple(f.upper() for f in found.group(1, 3, 4))
    else:
        found = _WORD_FORMAT.search(fold(description or ""))
        if not found:
            return None
        fields = tuple(_FIELD_NAMES[f] for f in found.group(1, 3, 4))
    return (fields, found.group(2)) if sorted(fields) == ["DD", "MM", "YYYY"] else None


def _parts(text: str, language: str) -> tuple[int, int, int] | None | str:
    """(year, month, day) where the date reads one way only; "ambiguous" where day and month could swap."""
    words = re.findall(r"[^\W\d_]+", fold(text))
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    month = next((_MONTH_NAMES[w] for w in words if w in _MONTH_NAMES), None)
    if month is not None:
        years = [n for n in numbers if n >= 1000]
        days = [n for n in numbers if 1 <= n <= 31]
        return (years[0], month, days[0]) if len(years) == 1 and len(days) == 1 else None
    if len(numbers) != 3:
        return None
    if numbers[0] >= 1000:
        return numbers[0], numbers[1], numbers[2]
    first, second, year = numbers
    if first > 12 >= second:
        return year, second, first
    if second > 12 >= first:
        return year, first, second
    if first == second:
        return year, first, second
    return "ambiguous"


def as_described(text: str, language: str, fmt: tuple[tuple[str, ...], str] | None) -> str | None:
    """The date in the described format; the text as typed where no format is named; None where the
    date cannot be written that way for sure."""
    if fmt is None:
        return text
    fields, separator = fmt
    parts = _parts(text, language)
    if isinstance(parts, str):  # "ambiguous", the one text _parts returns
        typed = re.fullmatch(r"(\d{1,2})([-/.])(\d{1,2})\2(\d{4})", text.strip())
        # as typed where the format orders day and month as the turn's language writes them
        usual = ("MM", "DD", "YYYY") if language == "en" else ("DD", "MM", "YYYY")
        if typed and fields == usual:
            return separator.join(
                (typed.group(1).zfill(2), typed.group(3).zfill(2), typed.group(4))
            )
        return None
    if parts is None:
        return None
    year, month, day = parts
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    value = {"YYYY": f"{year:04d}", "MM": f"{month:02d}", "DD": f"{day:02d}"}
    return separator.join(value[f] for f in fields)
