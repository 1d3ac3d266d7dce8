"""The embedded SQLite store (WAL), opened through sqlite-utils: the connection, time, transactions.

Every other module reaches the database through the functions of this package, so SQL lives
here and nowhere else. The store file and its WAL hold private briefing notes: they are created
owner-only (0600). A command that needs an existing store never creates one by accident.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from server.errors import ConfigError
from server.store.schema import LATER_COLUMNS, SCHEMA, revision_triggers


class StoreMissing(ConfigError):
    """No store at the configured path; the message names it and how to create one."""


class Database(sqlite_utils.Database):
    """One handle for the whole process; every thread gets its own connection to the same file.

    Handlers that may wait run in worker threads: a shared connection would mix their
    transactions, so `conn` is per thread (WAL lets them read while one writes)."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        super().__init__(self._connect(), execute_plugins=False)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=10000")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA recursive_triggers=ON")
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    @conn.setter
    def conn(self, value: sqlite3.Connection) -> None:
        self._local.conn = value


def now() -> str:
    """UTC timestamps as fixed-width ISO text, so SQL string comparison orders them."""
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def _owner_only(path: Path) -> None:
    """Create the store file (and its WAL and shared-memory files) 0600 before SQLite opens them.

    Files that exist are only chmod-ed, never opened: closing any descriptor of a file drops every
    POSIX lock this process holds on it, including the locks of SQLite connections already open."""
    for suffix in ("", "-wal", "-shm"):
        target = Path(f"{path}{suffix}")
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            os.chmod(target, 0o600)


def open_db(path: Path | str, create: bool = True) -> Database:
    """Open the club database in WAL mode with the schema in place.

    `create=False` refuses a path with no store, naming it: an admin command run from the wrong
    folder must not quietly start an empty club there."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise StoreMissing(f"no Parley store at {path.resolve()}: run 'parley demo' (a demo club) or "
                               "'parley init' (an empty club) first, or set PARLEY_DB to the store's path")
        path.parent.mkdir(parents=True, exist_ok=True)
    _owner_only(path)
    db = Database(path)
    db.executescript(SCHEMA)
    for table, column, kind in LATER_COLUMNS:
        if column not in db[table].columns_dict:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    db.executescript(revision_triggers())
    return db


@contextlib.contextmanager
def write(db: Database) -> Iterator[Database]:
    """One unit of work that writes: `BEGIN IMMEDIATE` takes the write lock before the first read,
    so a read-then-write never fails with SQLITE_BUSY_SNAPSHOT when another process committed
    in between. Nested units become savepoints."""
    conn = db.conn
    if conn.in_transaction:
        with db.atomic():
            yield db
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def insert(db: Database, table: str, row: dict) -> int:
    """Insert one row; its new id."""
    pk = db.table(table).insert(row).last_pk
    if not isinstance(pk, int):
        raise RuntimeError(f"insert into {table} returned no row id")
    return pk


def revision(db: Database) -> int:
    """The counter triggers bump on every change to what decides a caller's lane or scopes."""
    return db.execute("SELECT n FROM revision WHERE id = 1").fetchone()[0]
