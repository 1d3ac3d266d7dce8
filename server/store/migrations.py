"""`parley db migrate`: the PostgreSQL schema created and upgraded once, under an advisory lock, and
what every process of the cluster must agree on (key fingerprints, the manifest's digest) recorded.

A server on PostgreSQL never changes the schema itself: it refuses a schema that is not current.
The embedded SQLite store is brought up to date when it is opened (one host, one file).
"""

from __future__ import annotations

from server.errors import ConfigError
from server.store.database import Database
from server.store.schema import SCHEMA_VERSION, postgres_schema

# pg_advisory_lock key that makes concurrent migrations wait for each other ("pmig").
MIGRATE_LOCK = 0x706D6967


def schema_version(db: Database) -> int | None:
    """The schema version a PostgreSQL store is at (None: never migrated); SQLite answers its own."""
    if db.backend == "sqlite":
        return SCHEMA_VERSION
    if db.execute("SELECT to_regclass('parley_meta')").fetchone()[0] is None:
        return None
    value = meta(db, "schema_version")
    return int(value) if value is not None else None


def meta(db: Database, key: str) -> str | None:
    row = db.execute("SELECT value FROM parley_meta WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


_SET_META = "INSERT INTO parley_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"


def set_meta(db: Database, key: str, value: str) -> None:
    db.execute(_SET_META, [key, value])


def migrate(db: Database, recorded: dict[str, str]) -> tuple[int | None, int]:
    """Bring the schema to this Parley's version and record `recorded` (fingerprints, digests);
    (version before, version after). Concurrent runs wait for each other; the second finds it done."""
    if db.backend == "sqlite":
        with db.unit():
            for key, value in recorded.items():
                set_meta(db, key, value)
        return SCHEMA_VERSION, SCHEMA_VERSION
    from server.store.postgres import PostgresDatabase, translate

    assert isinstance(db, PostgresDatabase)
    with db.pool.connection() as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATE_LOCK,))
        try:
            before = schema_version(db)
            if before is not None and before > SCHEMA_VERSION:
                raise ConfigError(f"the store's schema is version {before}, newer than this Parley's "
                                  f"({SCHEMA_VERSION}): upgrade Parley, never downgrade a store")
            # on the connection that holds the lock (a session lock, so not through a write unit)
            with conn.transaction():
                if before != SCHEMA_VERSION:
                    conn.execute(postgres_schema())
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
        raise ConfigError("the PostgreSQL store has no Parley schema: run 'parley db migrate' first")
    raise ConfigError(f"the PostgreSQL store's schema is version {version} and this Parley needs "
                      f"{SCHEMA_VERSION}: run 'parley db migrate'")
