"""The store's one interface, whichever database is behind it: statements, units of work, time.

Every other module reaches the database through the functions of this package, so SQL lives
here and nowhere else. SQLite (`store.sqlite`) is the embedded default; PostgreSQL
(`store.postgres`) serves several processes on several machines.
"""

from __future__ import annotations

import abc
import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Protocol, TypeAlias, TypeVar

from server.errors import ConfigError, Conflict, ParleyError

# A statement's parameters: `?` placeholders in order, or `:name` ones by name.
Params: TypeAlias = Sequence[object] | dict[str, object] | None
# A row as a dict of its columns. Its values are what the schema says (TEXT, INTEGER, REAL), which
# Python's types cannot see through a driver: `object` until read with `text`, `integer` (below) or as
# a `Record`, so no untyped value leaves the store.
Row: TypeAlias = dict[str, object]
# A typed record of one query's shape (a frozen dataclass whose fields are the columns it selects).
Record = TypeVar("Record")


class Cursor(Protocol):
    """What a statement answers on either store: how many rows it changed, and its rows as tuples
    (their values typed by the schema, as `Row`'s are: read what you return, `integer(row[0])`)."""

    @property
    def rowcount(self) -> int: ...

    @property
    def description(
        self,
    ) -> Sequence[Sequence[object]] | None: ...  # (name, …) a column; None: no rows

    def fetchone(self) -> tuple[object, ...] | None: ...

    def fetchall(self) -> list[tuple[object, ...]]: ...

    def __iter__(self) -> Iterator[tuple[object, ...]]: ...


class StoreMissing(ConfigError):
    """No store at the configured path; the message names it and how to create one."""


class Taken(Conflict):
    """A unique value (a handle, a name, a version) was written by another request in the meantime:
    a clean refusal on either backend, never a 500."""

    def __init__(
        self,
        message: str = "that name or value was just taken by another request; nothing changed, "
        "try again",
    ):
        super().__init__(message)


class StoreUnavailable(ParleyError):
    """The store cannot be reached, or every pooled connection stayed busy: answered 503, never a 500
    and never a guess about the caller."""

    status = 503


@dataclass(frozen=True)
class PoolStats:
    """A pooled store's state for `/metrics`: reachable now, connections open, in use, requests waiting."""

    up: bool
    open: int
    in_use: int
    waiting: int


class Database(abc.ABC):
    """What every store module uses, on either backend: statements with `?` or `:name` parameters,
    dict rows, an insert that answers the new id, and units of work that write.

    SQL is written once, in the dialect both databases share; where they differ (the schema, locks,
    notifications) the backend's own module says so."""

    backend: str  # its name, for reports (`/healthz`, `parley cluster`); ask the capabilities below
    # Several processes read and write it at once: budgets, decisions and changes go through it, and
    # only `parley db migrate` and `parley keys init` create its schema and keys.
    shared: bool = False
    # Each statement waits on a network round trip: work that touches it runs off the event loop.
    over_network: bool = False

    def count_round_trips(self, counted: Callable[[int], None]) -> None:
        """Have its round trips, by what they were made for, counted (`/metrics`); a store with
        none (the embedded file) has nothing to count."""
        return None

    def audit_unwritten(self, rows: int) -> bool:
        """Whether an outage in progress counts these unwritten audit rows into its own recovery
        line (one line an outage); False: the caller logs each."""
        return False

    def pool_stats(self) -> PoolStats | None:
        """Its connection pool as gauges, if it has one."""
        return None

    @abc.abstractmethod
    def execute(self, sql: str, parameters: Params = None) -> Cursor:
        """Run one statement; what it changed and its rows."""

    @abc.abstractmethod
    def query(self, sql: str, params: Params = None) -> Iterator[Row]:
        """Run one statement; its rows as dicts."""

    @abc.abstractmethod
    def insert(self, table: str, row: Mapping[str, object]) -> int:
        """Insert one row; its new id."""

    @abc.abstractmethod
    def write(self) -> contextlib.AbstractContextManager[Database]:
        """One unit of work that writes, serialized against every other writer of the store; callers
        write `with write(db):` (the function below)."""

    @abc.abstractmethod
    def revision(self) -> int:
        """A number that changes whenever anything that decides a caller's lane or scopes changed."""

    @abc.abstractmethod
    def announce_inbox(self, principal_id: int) -> None:
        """Inside a unit: tell every process, when it commits, that this principal's inbox changed."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release every connection."""


def records(
    db: Database, record: Callable[..., Record], sql: str, params: Params = None
) -> list[Record]:
    """Each row as `record`, built from its columns by name: a column the record lacks, or a field
    no column fills, fails here rather than in a reader far away."""
    return [record(**row) for row in db.query(sql, params)]


def first_record(
    db: Database, record: Callable[..., Record], sql: str, params: Params = None
) -> Record | None:
    """The first row as `record` (see `records`), or None when there is none."""
    found = records(db, record, sql, params)
    return found[0] if found else None


def text(value: object) -> str:
    """A TEXT column's value (NOT NULL, or known present): any other type is a store that broke its
    schema, refused here rather than passed on as text."""
    if isinstance(value, str):
        return value
    raise _off_schema("text", value)


def text_or_none(value: object) -> str | None:
    """A TEXT column's value that may be NULL (or a LEFT JOIN's missing row)."""
    return None if value is None else text(value)


def integer(value: object) -> int:
    """An INTEGER column's value, or the number an aggregate answers, as `int()` reads it (PostgreSQL
    answers a `SUM` of integers as a Decimal)."""
    if isinstance(value, (int, float, Decimal)):
        return int(value)
    raise _off_schema("a number", value)


def integer_or_none(value: object) -> int | None:
    """An INTEGER column's value that may be NULL (or a LEFT JOIN's missing row)."""
    return None if value is None else integer(value)


def real(value: object) -> float:
    """A DOUBLE PRECISION column's value (float8: the driver answers a float, never anything else)."""
    if isinstance(value, float):
        return value
    raise _off_schema("a float", value)


def number(cursor: Cursor) -> int:
    """The number a statement that always answers one row answers first (`COUNT(*)`, `MAX(…) + 1`)."""
    row = cursor.fetchone()
    if row is None:
        raise RuntimeError("the statement answered no row where it always answers one")
    return integer(row[0])


def _off_schema(expected: str, value: object) -> TypeError:
    return TypeError(f"the store answered {type(value).__name__} where its schema holds {expected}")


def json_array(rows: Sequence[Sequence[object]]) -> str:
    """Rows as one compact JSON array: a single parameter, read back with `jsonb_array_elements`,
    so a statement's text stays the same however many rows it carries (prepared once)."""
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False)


def now() -> str:
    """UTC timestamps as fixed-width ISO text, so SQL string comparison orders them."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


@contextlib.contextmanager
def write(db: Database) -> Iterator[Database]:
    """One unit of work that writes: the whole unit holds the store's write lock from its start, so a
    read-then-write never races another writer (another thread, process or machine). Nested units
    become savepoints."""
    with db.write():
        yield db


def revision(db: Database) -> int:
    """The counter triggers bump on every change to what decides a caller's lane or scopes."""
    return db.revision()


def probe(db: Database) -> None:
    """One statement's round trip: returns when the store answers, raises when it does not."""
    db.execute("SELECT 1").fetchone()
