"""The rows the asking layer hands out (briefing notes, escalations, a thread's messages).

`Row` is what the store returns for one: sqlite-utils and psycopg read SQL values at run time and
give plain dicts (server/store annotates them `dict`), so their values are `Any` until the store
types its rows (a TypedDict per query there would let callers drop this alias)."""

from __future__ import annotations

from typing import Any

Row = dict[str, Any]
