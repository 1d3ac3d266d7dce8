"""The store's schema as numbered migrations, applied in order to both stores and recorded.

Each `vNNNN_what.py` in this folder is one migration: a docstring that says what and why, and two
functions, `sqlite(db)` and `postgresql(conn)`, that make the change on each store. Both must be
safe to run twice (`IF NOT EXISTS`; or look, then change, inside one `write(db)`), since two
processes may find the same migration pending. The schema's version is the highest number here;
nothing else states it. To add a column: copy the newest file with the next number, write both
functions (`steps.add_columns` does the usual case), and say in the docstring how older rows read.

SQLite applies pending migrations when it is opened (one host, one file); PostgreSQL only through
`parley db migrate`, once, under an advisory lock, and a server refuses a store that is not current.
Each store records the version it reached in `parley_meta` (key `schema_version`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from server.errors import ConfigError
from server.store.database import Database, text, write

if TYPE_CHECKING:
    import psycopg

    from server.store.sqlite import SqliteDatabase

# pg_advisory_lock key that makes concurrent migrations wait for each other ("pmig").
MIGRATE_LOCK = 0x706D6967
_NAME = re.compile(r"v(\d{4})_[a-z0-9_]+")


@dataclass(frozen=True)
class Migration:
    """One numbered file: its version, name, and the change on each store."""

    version: int
    name: str
    sqlite: Callable[[SqliteDatabase], None]
    postgresql: Callable[[psycopg.Connection[tuple[object, ...]]], None]


def _load(module: ModuleType) -> Migration:
    found = _NAME.fullmatch(module.__name__.rsplit(".", 1)[1])
    sqlite, postgresql = getattr(module, "sqlite", None), getattr(module, "postgresql", None)
    if found is None or not callable(sqlite) or not callable(postgresql) or not module.__doc__:
        raise RuntimeError(
            f"{module.__name__}: a migration is vNNNN_name.py with a docstring, "
            "sqlite(db) and postgresql(conn)"
        )
    return Migration(int(found.group(1)), module.__name__.rsplit(".", 1)[1], sqlite, postgresql)


def _discover() -> tuple[Migration, ...]:
    """Every migration file of this folder, in order; numbers must run without gaps or repeats."""
    names = sorted(
        info.name for info in pkgutil.iter_modules(__path__) if _NAME.fullmatch(info.name)
    )
    found = tuple(_load(importlib.import_module(f"{__name__}.{name}")) for name in names)
    versions = [m.version for m in found]
    if not versions or versions != list(range(versions[0], versions[0] + len(versions))):
        raise RuntimeError(f"migration numbers must follow each other without gaps: {versions}")
    return found


MIGRATIONS = _discover()
SCHEMA_VERSION = MIGRATIONS[-1].version  # the schema this Parley writes and reads


def pending(version: int | None) -> tuple[Migration, ...]:
    """The migrations a store at `version` still needs (None: a new store, every one)."""
    return tuple(m for m in MIGRATIONS if version is None or m.version > version)


def schema_version(db: Database) -> int | None:
    """The schema version a store has recorded (None: never migrated)."""
    if db.backend == "sqlite":
        if (
            db.execute("SELECT name FROM sqlite_master WHERE name = 'parley_meta'").fetchone()
            is None
        ):
            return None
    else:
        found = db.execute("SELECT to_regclass('parley_meta')").fetchone()
        if found is None or found[0] is None:  # the query always answers one row: NULL, no table
            return None
    value = meta(db, "schema_version")
    return int(value) if value is not None else None


def meta(db: Database, key: str) -> str | None:
    row = db.execute("SELECT value FROM parley_meta WHERE key = ?", [key]).fetchone()
    return text(row[0]) if row else None


_SET_META = (
    "INSERT INTO parley_meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
)


def set_meta(db: Database, key: str, value: str) -> None:
    db.execute(_SET_META, [key, value])


def _refuse_newer(before: int | None) -> None:
    if before is not None and before > SCHEMA_VERSION:
        raise ConfigError(
            f"the store's schema is version {before}, newer than this Parley's "
            f"({SCHEMA_VERSION}): upgrade Parley, never downgrade a store"
        )


def upgrade_sqlite(db: SqliteDatabase) -> tuple[int | None, int]:
    """Apply the migrations this SQLite file lacks, recording each; (version before, after)."""
    from server.store.sqlite import current_triggers

    before = schema_version(db)
    _refuse_newer(before)
    for migration in pending(before):
        migration.sqlite(db)
        with write(db):
            set_meta(db, "schema_version", str(migration.version))
    current_triggers(db)
    return before, SCHEMA_VERSION


def migrate(db: Database, recorded: dict[str, str]) -> tuple[int | None, int]:
    """Bring the schema to this Parley's version and record `recorded` (fingerprints, digests);
    (version before, version after). Concurrent runs wait for each other; the second finds it
    done."""
    if db.backend == "sqlite":
        from server.store.sqlite import SqliteDatabase

        assert isinstance(db, SqliteDatabase)
        before, after = upgrade_sqlite(db)  # opening applied them already: this finds none pending
        with write(db):
            for key, value in recorded.items():
                set_meta(db, key, value)
        return before, after
    from server.store.postgres import PostgresDatabase, translate

    assert isinstance(db, PostgresDatabase)
    with db.pool.connection() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK,))
        try:
            before = schema_version(db)
            _refuse_newer(before)
            # on the connection that holds the lock (a session lock, so not through a write unit)
            with conn.transaction():
                steps = pending(before)
                for migration in steps:
                    migration.postgresql(conn)
                if steps:
                    recorded = {"schema_version": str(SCHEMA_VERSION), **recorded}
                for key, value in recorded.items():
                    conn.execute(translate(_SET_META), (key, value))
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATE_LOCK,))
    return before, SCHEMA_VERSION


def require_current(db: Database) -> None:
    """Refuse to serve a PostgreSQL store whose schema is missing or not this Parley's version."""
    version = schema_version(db)
    if version == SCHEMA_VERSION:
        return
    if version is None:
        raise ConfigError(
            "the PostgreSQL store has no Parley schema: run 'parley db migrate' first"
        )
    raise ConfigError(
        f"the PostgreSQL store's schema is version {version} and this Parley needs "
        f"{SCHEMA_VERSION}: run 'parley db migrate'"
    )
