"""The embedded store: one SQLite file in WAL mode, opened through sqlite-utils.

The store file and its WAL hold private briefing notes: they are created owner-only (0600). The
schema is brought up to date at open, since only processes on this one host can share the file.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import sqlite_utils

from server.store.database import Database, Params, StoreMissing, Taken, write
from server.store.triggers import revision_triggers


class SqliteDatabase(sqlite_utils.Database, Database):
    """One handle for the whole process; every thread gets its own connection to the same file.

    Handlers that may wait run in worker threads: a shared connection would mix their
    transactions, so `conn` is per thread (WAL lets them read while one writes)."""

    backend = "sqlite"

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

    def execute(self, sql: str, parameters: Params = None) -> sqlite3.Cursor:
        with _unique_as_taken():
            return super().execute(sql, parameters)

    def insert(self, table: str, row: Mapping[str, object]) -> int:
        """One plain INSERT, as the PostgreSQL store writes it: sqlite-utils' insert reads the table's
        columns first, which costs a write more than the insert itself."""
        pk = self.execute(_insert_sql(table, tuple(row)), dict(row)).lastrowid
        if not isinstance(pk, int):
            raise RuntimeError(f"insert into {table} returned no row id")
        return pk

    @contextlib.contextmanager
    def write(self) -> Iterator[Database]:
        """`BEGIN IMMEDIATE` takes the write lock before the first read, so a read-then-write never
        fails with SQLITE_BUSY_SNAPSHOT when another process committed in between."""
        conn = self.conn
        if conn.in_transaction:
            with self.atomic():
                yield self
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")

    def revision(self) -> int:
        """Triggers bump the counter; every process on this host reads the same file. Read for every
        request, so straight on the connection: a plain read needs none of `execute`'s write handling."""
        return int(self.conn.execute("SELECT n FROM revision WHERE id = 1").fetchone()[0])

    def announce_inbox(self, principal_id: int) -> None:
        """Nothing to send: the deciding process tells its own sessions (the CLI's reach none)."""


@functools.lru_cache(maxsize=128)
def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    """The INSERT for these names, checked once: the tables' own column sets, a few dozen at most."""
    if not re.fullmatch(r"\w+", table) or not all(
        re.fullmatch(r"\w+", column) for column in columns
    ):
        raise ValueError(f"not a table or column name: {table}")
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(f':{column}' for column in columns)})"


@contextlib.contextmanager
def _unique_as_taken() -> Iterator[None]:
    """A unique value written by another request meanwhile: the clean refusal both stores give."""
    try:
        yield
    except sqlite3.IntegrityError as exc:
        if "UNIQUE" in str(exc):
            raise Taken() from None
        raise


def current_triggers(db: SqliteDatabase) -> None:
    """Make the revision triggers today's; a store made by an earlier version gets them here, and a
    current one is left alone (a schema change makes every other connection prepare again)."""
    wanted = revision_triggers()
    present = dict(
        db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    )
    stale = [name for name, statement in wanted.items() if present.get(name) != statement]
    if stale:
        with write(db):
            for name in stale:
                db.execute(f"DROP TRIGGER IF EXISTS {name}")
                db.execute(wanted[name])


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


def open_sqlite(path: Path, create: bool = True) -> SqliteDatabase:
    """Open the club database in WAL mode; `opening.open_db` then brings its schema up to date
    (server/store/migrations/)."""
    if not path.exists():
        if not create:
            raise StoreMissing(
                f"no Parley store at {path.resolve()}: run 'parley demo' (a demo club) or "
                "'parley init' (an empty club) first, or set PARLEY_DB to the store's path"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    _owner_only(path)
    return SqliteDatabase(path)
