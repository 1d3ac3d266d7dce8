"""The store's numbered migrations: the version is the newest file's number, every store records the
version it reached, and running them again changes nothing, on a real SQLite file and a real
PostgreSQL database."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from server.store import migrations
from server.store.database import Database, now, write
from server.store.migrations import SCHEMA_VERSION, migrate, schema_version
from server.store.opening import open_db
from tests.cli.test_cli import run

FOLDER = Path(migrations.__file__).parent
BOTH = pytest.mark.parametrize("backend", ["sqlite", "postgresql"])


def columns(db: Database) -> dict[str, list[str]]:
    """Every table's columns, as the store reports them."""
    if db.backend == "sqlite":
        tables = [
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            ).fetchall()
        ]
        return {
            t: [row[1] for row in db.execute(f"PRAGMA table_info({t})").fetchall()]
            for t in sorted(tables)
        }
    rows = db.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    ).fetchall()
    found: dict[str, list[str]] = {}
    for table, column in rows:
        found.setdefault(table, []).append(column)
    return found


def test_the_schema_version_is_the_newest_files_number():
    numbers = sorted(
        int(found.group(1))
        for path in FOLDER.glob("v*.py")
        if (found := re.fullmatch(r"v(\d{4})_[a-z0-9_]+\.py", path.name))
    )
    assert numbers and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert SCHEMA_VERSION == numbers[-1] == migrations.MIGRATIONS[-1].version
    for migration in migrations.MIGRATIONS:
        module = __import__(f"server.store.migrations.{migration.name}", fromlist=["_"])
        assert (module.__doc__ or "").strip(), f"{migration.name}: say what it changes and why"


@BOTH
def test_a_new_store_records_the_newest_version_and_migrating_again_changes_nothing(fresh_store):
    db = fresh_store
    assert schema_version(db) == SCHEMA_VERSION
    before = columns(db)
    assert migrate(db, {}) == (SCHEMA_VERSION, SCHEMA_VERSION)
    assert migrate(db, {}) == (SCHEMA_VERSION, SCHEMA_VERSION)
    assert columns(db) == before


@BOTH
def test_a_store_at_an_older_version_is_brought_up_and_keeps_its_rows(fresh_store):
    db = fresh_store
    with write(db):
        db.insert(
            "principals",
            {"handle": "olga", "name": "Olga", "status": "member", "created_at": now()},
        )
        db.execute("UPDATE parley_meta SET value = '2' WHERE key = 'schema_version'")
    assert schema_version(db) == 2
    assert migrate(db, {}) == (2, SCHEMA_VERSION)
    assert schema_version(db) == SCHEMA_VERSION
    assert db.execute("SELECT name FROM principals WHERE handle = 'olga'").fetchone()[0] == "Olga"


def test_a_newer_store_is_refused_and_left_alone(fresh_store):
    db = fresh_store
    with write(db):
        db.execute(
            "UPDATE parley_meta SET value = ? WHERE key = 'schema_version'",
            [str(SCHEMA_VERSION + 1)],
        )
    with pytest.raises(Exception, match="newer than this Parley"):
        migrate(db, {})
    assert schema_version(db) == SCHEMA_VERSION + 1


def test_parley_db_migrate_on_sqlite_applies_what_is_pending_then_finds_nothing(tmp_path):
    run(tmp_path, "init")
    run(tmp_path, "keys", "init")  # db migrate records the keys' fingerprints
    with sqlite3.connect(
        tmp_path / "club.db"
    ) as conn:  # as a store from before the newest migration
        conn.execute(
            "UPDATE parley_meta SET value = ? WHERE key = 'schema_version'",
            [str(SCHEMA_VERSION - 1)],
        )
    first = run(tmp_path, "db", "migrate")
    assert f"schema upgraded from {SCHEMA_VERSION - 1} to version {SCHEMA_VERSION}" in first.stdout
    second = run(tmp_path, "db", "migrate")
    assert f"schema already at version {SCHEMA_VERSION}" in second.stdout
    db = open_db(tmp_path / "club.db", create=False)
    try:
        assert schema_version(db) == SCHEMA_VERSION
    finally:
        db.close()


def store_at_baseline(backend: str, tmp_path: Path, postgres_url: str | None) -> Database:
    """A store as version 3 left it: the baseline migration alone, its version recorded."""
    baseline = migrations.MIGRATIONS[0]
    assert baseline.version == 3
    if backend == "sqlite":
        from server.store.sqlite import open_sqlite

        db = open_sqlite(tmp_path / "club.db")
        baseline.sqlite(db)
    else:
        assert postgres_url is not None
        db = open_db(postgres_url)
        from server.store.postgres import PostgresDatabase

        assert isinstance(db, PostgresDatabase)
        with db.pool.connection() as conn, conn.transaction():
            baseline.postgresql(conn)
    with write(db):
        migrations.set_meta(db, "schema_version", "3")
    return db


AUDIT_V3 = (
    "INSERT INTO audit (ts, lane, principal, agent, tool, outcome, duration_ms, binding, rule) "
    "VALUES (?, 'member', 'bruno', 'laptop', ?, ?, 1.5, ?, ?)"
)


@BOTH
def test_version_4_splits_older_audit_bindings_into_columns(backend, tmp_path, request):
    url = request.getfixturevalue("postgres").new_database() if backend == "postgresql" else None
    db = store_at_baseline(backend, tmp_path, url)
    try:
        with write(db):
            db.execute(
                AUDIT_V3,
                [now(), "ask", "rule_denied", "member · parley · ask", "Applicants ask at most"],
            )
            db.execute(AUDIT_V3, [now(), "whoami", "ok", None, None])  # no persona: no binding
        assert schema_version(db) == 3
        assert migrate(db, {}) == (3, SCHEMA_VERSION)
        rows = db.execute(
            "SELECT tool, binding_agent, binding_server, rule FROM audit ORDER BY id"
        ).fetchall()
        assert [tuple(row) for row in rows] == [
            ("ask", "member", "parley", "Applicants ask at most"),
            ("whoami", None, None, None),
        ]
        assert "binding" not in columns(db)["audit"]
        assert migrate(db, {}) == (
            SCHEMA_VERSION,
            SCHEMA_VERSION,
        )  # again: nothing to do, nothing lost
        assert len(db.execute("SELECT id FROM audit").fetchall()) == 2
    finally:
        db.close()
        if url is not None:
            request.getfixturevalue("postgres").drop(url)


@BOTH
def test_version_8_reads_older_notes_as_revision_1_and_older_messages_as_quoting_none(
    backend, tmp_path, request
):
    url = request.getfixturevalue("postgres").new_database() if backend == "postgresql" else None
    db = store_at_baseline(backend, tmp_path, url)
    try:
        stamp = now()
        with write(db):
            db.execute(
                "INSERT INTO principals (handle, name, status, created_at) "
                "VALUES ('ana', 'Ana', 'member', ?)",
                [stamp],
            )
            ana = db.execute("SELECT id FROM principals WHERE handle = 'ana'").fetchone()[0]
            db.execute(
                "INSERT INTO briefing (principal_id, topic, text, visibility, created_at, updated_at,"
                " status) VALUES (?, 'design', 'Ana designs books.', 'public', ?, ?, 'pending')",
                [ana, stamp, stamp],
            )
            db.execute(
                "INSERT INTO threads (asker_id, answerer_id, subject, created_at, updated_at) "
                "VALUES (?, ?, 'design', ?, ?)",
                [ana, ana, stamp, stamp],
            )
            thread = db.execute("SELECT id FROM threads").fetchone()[0]
            db.execute(
                "INSERT INTO messages (thread_id, kind, body, created_at) "
                "VALUES (?, 'question', 'Books?', ?)",
                [thread, stamp],
            )
        assert migrate(db, {}) == (3, SCHEMA_VERSION)
        from server.asking import briefing
        from server.store import asking

        (note,) = briefing.notes(db, ana)
        assert note.revision == 1
        assert [m.quotes for m in asking.messages(db, thread)] == [None]
        replaced = briefing.write_note(
            db, ana, "design", "Ana designs posters.", "public", agent="a", note_id=note.id
        )
        assert replaced.revision == 2
        assert migrate(db, {}) == (SCHEMA_VERSION, SCHEMA_VERSION)
    finally:
        db.close()
        if url is not None:
            request.getfixturevalue("postgres").drop(url)
