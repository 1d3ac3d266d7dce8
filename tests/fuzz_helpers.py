"""Shared pieces of the fuzz suite: hostile values, schema-driven invalid arguments, store snapshots,
JSON-RPC answers read from JSON or SSE bodies, and an OAuth access token obtained through the real pages."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import httpx2
from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as conjecture_utils
from hypothesis_jsonschema import _from_schema as jsonschema_strategies
from hypothesis_jsonschema import from_schema as _from_schema
from jsonschema import Draft202012Validator

MB = 1024 * 1024
ACCEPT = "application/json, text/event-stream"


# --- hypothesis-jsonschema on this hypothesis --------------------------------------------------


class _SteppedMany:
    """The `many(...).more()` protocol hypothesis-jsonschema 0.23.1 calls for objects, over the
    iterator-style `many` of hypothesis 6.170 (which dropped `more()`: every object schema failed
    with AttributeError: 'many' object has no attribute 'more')."""

    def __init__(self, data, min_size, max_size, average_size, **kwargs):
        self._many = _NEW_MANY(data, min_size, max_size, average_size, **kwargs)
        self._many.__enter__()
        self._steps = iter(self._many)

    def more(self) -> bool:
        try:
            next(self._steps)
        except StopIteration:
            self._many.__exit__(None, None, None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


_NEW_MANY = conjecture_utils.many


class _UtilsWithSteppedMany:
    def __getattr__(self, name: str):
        return _SteppedMany if name == "many" else getattr(conjecture_utils, name)


if not hasattr(conjecture_utils.many, "more"):
    jsonschema_strategies.cu = _UtilsWithSteppedMany()  # only hypothesis-jsonschema's own view


def from_schema(schema: dict) -> st.SearchStrategy:
    return _from_schema(schema)


# --- hostile values ---------------------------------------------------------------------------


def nested_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def nested_dict(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


CONTROL = "".join(chr(c) for c in range(0, 32)) + "\x7f\u0085\u2028\u2029"
ESCAPES = "\x1b[31mred\x1b[0m\r\n\t\x00\x08\u202e\ufeff"

HOSTILE: list[Any] = [
    2**63,
    -(2**63) - 1,
    2**64,
    10**30,
    -1,
    0,
    9007199254740993,
    1.5,
    1e308,
    -0.0,
    "12345678901234567890",
    "9223372036854775808",
    "-1",
    "0",
    "1e309",
    "NaN",
    "true",
    "null",
    "",
    " ",
    CONTROL,
    ESCAPES,
    "\ud7ff\ue000\U0010ffff",
    "é" * 5000,
    "💥" * 3000,
    "a" * 70_000,
    "x" * MB,
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "%s%n%x",
    "../../etc/passwd",
    None,
    True,
    False,
    [],
    {},
    [1, "two", None],
    {"": ""},
    {"$ref": "#"},
    nested_list(120),
    nested_dict(120),
    ["x" * 1000] * 200,
]

hostile_values = (
    st.sampled_from(HOSTILE)
    | st.text(max_size=40)
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    )
)

hostile_keys = st.sampled_from(
    ["x", "", " ", CONTROL, ESCAPES, "k" * 100_000, "__proto__", "constructor", "$ref"]
) | st.text(min_size=1, max_size=20)


def validator(schema: dict) -> Draft202012Validator:
    return Draft202012Validator(schema)


def invalid_arguments(schema: dict, valid: st.SearchStrategy) -> st.SearchStrategy:
    """Arguments that start from a valid value and break it: a required field dropped, a field set to
    a hostile value of the wrong type or size, or an unknown field added (every schema is closed)."""
    properties = list((schema.get("properties") or {}).keys())
    required = list(schema.get("required") or [])

    @st.composite
    def broken(draw) -> dict:
        base = dict(draw(valid))
        moves = ["extra"]
        if required:
            moves.append("missing")
        if properties:
            moves += ["hostile", "hostile"]
        move = draw(st.sampled_from(moves))
        if move == "missing":
            base.pop(draw(st.sampled_from(required)), None)
        elif move == "hostile":
            base[draw(st.sampled_from(properties))] = draw(hostile_values)
        else:
            key = draw(hostile_keys.filter(lambda k: k not in properties))
            base[key] = draw(hostile_values)
        return base

    return broken()


# --- the store --------------------------------------------------------------------------------

# Tables a rejected call may still touch: the audit trail, token last use, the revision counter,
# console sessions, and SQLite's own counters.
VOLATILE = {"audit", "tokens", "revision", "console_sessions", "sqlite_sequence"}


def store_dump(path: Path) -> list[str]:
    """Every row of every table that a refused call must leave alone, as SQL text."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        lines = []
        for line in conn.iterdump():
            match = re.match(r'INSERT INTO "?([A-Za-z_]+)"?', line)
            if match and match.group(1) in VOLATILE:
                continue
            lines.append(line)
        return lines
    finally:
        conn.close()


def dump_difference(before: list[str], after: list[str]) -> str:
    gone = sorted(set(before) - set(after))[:5]
    new = sorted(set(after) - set(before))[:5]
    return f"removed {[line[:300] for line in gone]}; added {[line[:300] for line in new]}"


# --- JSON-RPC over raw HTTP -------------------------------------------------------------------


def rpc_messages(response: httpx2.Response) -> list[Any]:
    """The JSON-RPC messages in a response body, whether it is JSON or an SSE stream."""
    kind = response.headers.get("content-type", "")
    text = response.text
    if "text/event-stream" in kind:
        out = []
        for line in text.splitlines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data:
                    try:
                        out.append(json.loads(data))
                    except ValueError:
                        out.append(data)
        return out
    if not text.strip():
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [text]
    return value if isinstance(value, list) else [value]


def is_rpc_error(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and isinstance(message.get("error"), dict)
    )


def describe(response: httpx2.Response, limit: int = 600) -> str:
    request = response.request
    body = request.content[:200] if request is not None and request.content else b""
    headers = {
        k: (v[:60] + "…" if len(v) > 60 else v)
        for k, v in (request.headers.multi_items() if request else [])
    }
    return (
        f"{request.method if request else '?'} {str(request.url)[:200] if request else '?'} headers={headers} "
        f"body[:200]={body!r} -> {response.status_code} {response.headers.get('content-type', '')} "
        f"{response.text[:limit]!r}"
    )
