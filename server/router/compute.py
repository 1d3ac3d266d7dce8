"""The arithmetic a turn asks where no tool answers it: numbers joined by operator words or symbols.

Exact (Decimal), left to right with * and / before + and -: enough for what a turn asks.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from server.router import lexicon as lx
from server.router.reader import Token


def arithmetic(tokens: list[Token], language: str) -> tuple[str, str | None]:
    """A plain arithmetic expression from the turn: numbers joined by operator words or symbols."""
    operators = lx.COMPUTE_OPERATORS[language]
    parts: list[str] = []
    words = [t for t in tokens if t.kind != "punct"]
    i = 0
    while i < len(words):
        token = words[i]
        if token.kind in ("number", "decimal", "money"):
            parts.append(_number(token.text, language))
            i += 1
            continue
        matched = False
        for phrase in sorted(operators, key=len, reverse=True):
            size = len(phrase.split())
            if " ".join(w.norm for w in words[i : i + size]) == phrase:
                parts.append(operators[phrase])
                i += size
                matched = True
                break
        if (
            not matched
            and token.norm in ("x",)
            and parts
            and parts[-1][:1].isdigit()
            and i > 0
            and words[i - 1].kind in ("number", "decimal", "money")
            and i + 1 < len(words)
            and words[i + 1].kind in ("number", "decimal", "money")
        ):  # "3 x 4"; the x of "x = 3" is a name
            parts.append("*")
            matched = True
            i += 1
        if not matched:
            i += 1
    expression = " ".join(parts).replace("%of", "% of")
    try:
        value = _evaluate(parts)
    except (InvalidOperation, ZeroDivisionError, ValueError, IndexError):
        return expression, None
    return expression, value


def _number(text: str, language: str) -> str:
    digits = "".join(ch for ch in text if ch.isdigit() or ch in ".,")
    if language == "pt-BR":
        digits = digits.replace(".", "").replace(",", ".")
    else:
        digits = digits.replace(",", "")
    return digits


def _evaluate(parts: list[str]) -> str:
    """Left-to-right with * and / before + and -: enough for what a turn asks, and exact (Decimal)."""
    if not parts or len(parts) % 2 == 0:
        raise ValueError("not an expression")
    values = [Decimal(parts[0])]
    ops: list[str] = []
    for op, raw in zip(parts[1::2], parts[2::2], strict=False):
        number = Decimal(raw)
        if op == "%of":
            values[-1] = values[-1] * number / 100
        elif op in ("*", "/"):
            values[-1] = values[-1] * number if op == "*" else values[-1] / number
        elif op in ("+", "-"):
            ops.append(op)
            values.append(number)
        else:
            raise ValueError(op)
    total = values[0]
    for op, number in zip(ops, values[1:], strict=False):
        total = total + number if op == "+" else total - number
    text = format(total.normalize(), "f")
    return text
