"""Opening the club's store: the backend is chosen by where it is."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from server.store.database import Database

if TYPE_CHECKING:
    from server.store.postgres import PostgresDatabase


def open_db(
    location: Path | str, create: bool = True, pool_size: int = 20, upgrade: bool = True
) -> Database:
    """Open the club's store: PostgreSQL for a `postgresql://` URL, else the SQLite file at that path.

    `create=False` refuses a SQLite path with no store, naming it: an admin command run from the
    wrong folder must not quietly start an empty club there. A PostgreSQL store is created and
    upgraded only by `parley db migrate`; an SQLite file is upgraded as it is opened, unless
    `upgrade=False` (`parley db migrate` opens it so, to apply and report the migrations itself)."""
    text = str(location)
    if text.startswith(("postgresql://", "postgres://")):
        from server.store.postgres import PostgresDatabase

        return PostgresDatabase(text, pool_size)
    from server.store.migrations import upgrade_sqlite
    from server.store.sqlite import open_sqlite

    db = open_sqlite(Path(location), create)
    try:
        if upgrade:
            upgrade_sqlite(db)  # one host, one file: the store's migrations run as it is opened
    except BaseException:
        db.close()
        raise
    return db


def shared_store(db: Database) -> PostgresDatabase | None:
    """The store itself when several processes share it (`Database.shared`), typed for what only
    such a store offers: budgets kept in it, its change feed."""
    from server.store.postgres import PostgresDatabase

    return db if isinstance(db, PostgresDatabase) and db.shared else None
