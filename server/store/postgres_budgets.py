"""The cluster-wide rate-limit budgets' one statement on PostgreSQL: every ask's budget spent and the
revision read in one round trip (`PostgresDatabase.take_budgets_reading_revision`), and the startup
options of the connections that send it from an event loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from psycopg.conninfo import conninfo_to_dict

from server.store.database import integer, integer_or_none, json_array, real, text

_GENERIC = "-c plan_cache_mode=force_generic_plan"


def plan_once(url: str) -> str:
    """The loop connections' startup options: the URL's own, and a generic plan for the budget
    statement (the only one they send). Prepared after a few runs (psycopg's prepare_threshold), it
    was still planned again on every run: PostgreSQL keeps custom plans for a statement whose
    parameters' values could change its plan, and its estimates never favoured the generic one;
    here no value changes the plan (a row a key, found by its primary key). Planning was a third of
    the database's time a statement."""
    own = conninfo_to_dict(url).get("options")
    return f"{own} {_GENERIC}" if own else _GENERIC


# A row the budget statement answers: a key, how many of its asks were allowed (`taken`), how far
# its bucket is ahead of now (`behind`, seconds), and the revision (None before the first change).
BudgetRow = tuple[str, int, float, int | None]
Answer = tuple[list[float | None], int]


def budget_statement(
    asks: Sequence[tuple[str, int]],
) -> tuple[str, list[object], Callable[[Sequence[Sequence[object]]], Answer]]:
    """The budget statement for `asks` (`take_budgets_reading_revision`): its text, its parameters,
    and what reads its rows into each ask's wait and the revision."""
    by_key: dict[str, list[int]] = {}
    for index, (key, _) in enumerate(asks):
        by_key.setdefault(key, []).append(index)
    # a row a key: (key, its asks, the step one ask moves its arrival time, the slack its burst allows)
    asked: list[tuple[str, int, float, float]] = []
    for key in sorted(by_key):
        per_minute = asks[by_key[key][0]][1]
        step = 60.0 / per_minute
        asked.append((key, len(by_key[key]), step, step * (per_minute - 1)))
    slack_of = {key: slack for key, _, _, slack in asked}

    def answer(answered: Sequence[Sequence[object]]) -> Answer:
        rows = [_budget_row(row) for row in answered]
        if len(rows) != len(asked):
            raise RuntimeError("the budget statement did not answer for every key")
        waits: list[float | None] = [None] * len(asks)
        for key, taken, behind, _ in rows:
            refused = by_key[key][taken:]
            if refused:
                wait = max(0.001, behind - slack_of[key])
                for index in refused:
                    waits[index] = wait
        current = rows[0][3]
        return waits, current if current is not None else 0

    # one JSON parameter rather than four arrays: psycopg adapts a string at once, where each list
    # is inspected element by element to choose its array type, on every statement
    return _STATEMENT, [json_array(asked)], answer


def _budget_row(row: Sequence[object]) -> BudgetRow:
    """A row as the driver hands it over, read as its columns' types (text, int, float8, int)."""
    key, taken, behind, revision = row
    return text(key), integer(taken), real(behind), integer_or_none(revision)


# The budget statement: each key's asks (n) with its emission interval (step) and burst allowance
# (slack); a bucket's "behind" is how far its theoretical arrival time is ahead of now. Of n asks, as
# many are allowed as j = 0 … n-1 with behind + j·step <= slack; `taken` keeps that count for
# RETURNING, which sees only the new row.
_STATEMENT = """WITH clock AS (SELECT extract(epoch FROM clock_timestamp())::float8 AS t),
asked AS (SELECT a->>0 AS key, (a->>1)::int AS n, (a->>2)::float8 AS step, (a->>3)::float8 AS slack
  FROM jsonb_array_elements(?::jsonb) a),
spent AS (
  INSERT INTO rate_buckets AS b (key, tat, taken)
  SELECT a.key, c.t + f.m * a.step, f.m
  FROM asked a CROSS JOIN clock c CROSS JOIN LATERAL (
    SELECT count(*)::int AS m FROM generate_series(0, a.n - 1) j WHERE j * a.step <= a.slack) f
  ORDER BY a.key
  ON CONFLICT (key) DO UPDATE SET (tat, taken) = (
    SELECT GREATEST(b.tat, c.t) + f.m * a.step, f.m
    FROM asked a CROSS JOIN clock c CROSS JOIN LATERAL (
      SELECT count(*)::int AS m FROM generate_series(0, a.n - 1) j
      WHERE GREATEST(b.tat, c.t) - c.t + j * a.step <= a.slack) f
    WHERE a.key = b.key)
  RETURNING b.key, b.taken, b.tat - (SELECT t FROM clock) AS behind)
SELECT key, taken, behind, (SELECT n FROM revision WHERE id = 1) FROM spent"""
