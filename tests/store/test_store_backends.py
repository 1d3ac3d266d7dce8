"""The store layer behaves alike on SQLite and PostgreSQL: clean refusals for taken values, write
units that serialize read-then-write, and on PostgreSQL the schema made only by migrate, the
parameters rewritten safely and a budget shared by every process."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from server.errors import ConfigError
from server.identity import mandates, tokens
from server.identity import principals as club_ops
from server.identity.credentials import digest
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.store import principals as principal_rows
from server.store import tokens as token_rows
from server.store.database import Taken, write
from server.store.migrations import SCHEMA_VERSION, migrate, require_current, schema_version
from server.store.opening import open_db
from server.store.postgres import PostgresDatabase, translate
from tests.conftest import connect, running_club


def test_a_taken_unique_value_is_a_clean_refusal_that_writes_nothing(fresh_store):
    db = fresh_store
    db.insert(
        "principals", {"handle": "ana", "name": "Ana", "status": "member", "created_at": "2026"}
    )
    with pytest.raises(Taken, match="just taken"):
        db.insert(
            "principals",
            {"handle": "ana", "name": "Other", "status": "member", "created_at": "2026"},
        )
    with pytest.raises(Taken):
        with write(db):
            db.insert(
                "principals",
                {"handle": "bea", "name": "Bea", "status": "member", "created_at": "2026"},
            )
            db.execute("UPDATE principals SET handle = 'ana' WHERE handle = 'bea'")
    assert [row.handle for row in principal_rows.listing(db)] == [
        "ana"
    ]  # the unit rolled back whole


def test_concurrent_read_then_write_units_never_collide(fresh_store, tmp_path):
    """Eight threads sign mandates for one member at once: every `MAX(version)+1` is distinct."""
    db = fresh_store
    manifest = load_manifest()
    key = SigningKey.load_or_create(tmp_path / "keys")
    ana = club_ops.add_principal(db, "ana", "Ana", status="member")
    failures: list[BaseException] = []

    def sign() -> None:
        try:
            for _ in range(3):
                mandates.sign_mandate(
                    db,
                    key,
                    principal_id=ana.id,
                    topics=["x"],
                    reveal=["public"],
                    quotable=False,
                    scopes=["club:read"],
                    known_scopes=frozenset(manifest.scopes),
                    agent_scopes=manifest.agent_scopes,
                    valid_for=timedelta(days=1),
                )
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            failures.append(exc)

    threads = [threading.Thread(target=sign) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    versions = [
        row[0]
        for row in db.execute(
            "SELECT version FROM mandates WHERE principal_id = ? ORDER BY version", [ana.id]
        ).fetchall()
    ]
    assert versions == list(range(1, 25))


def test_the_revision_moves_with_every_change_that_decides_scopes(fresh_store):
    db = fresh_store
    before = db.revision()
    club_ops.add_principal(db, "ana", "Ana", status="member")
    after = db.revision()
    assert after > before
    db.execute(
        "INSERT INTO audit (ts, lane, tool, outcome, duration_ms) VALUES ('t', 'guest', 'x', 'ok', 1)"
    )
    assert db.revision() == after  # the audit decides nothing
    ana = club_ops.find_principal(db, "ana")
    minted = tokens.mint(
        db,
        principal_id=ana.id,
        agent_id=club_ops.add_agent(db, "ana", "helper"),
        scopes={"club:read"},
    )
    minted_at = db.revision()
    assert minted_at > after
    token_rows.touch(db, digest(minted.token), "2026-12-03T00:00:00.000000Z")
    assert db.revision() == minted_at  # a token's last use decides nothing either
    tokens.revoke(db, minted.public_id)
    assert db.revision() > minted_at


# --- PostgreSQL only --------------------------------------------------------------------------


def test_parameters_are_rewritten_outside_quotes_only():
    assert (
        translate("SELECT 'a?b', ? FROM t WHERE x LIKE ? ESCAPE '\\'")
        == "SELECT 'a?b', %s FROM t WHERE x LIKE %s ESCAPE '\\'"
    )
    assert (
        translate("SELECT :me, 'it''s :not', n::text, 5 % 2")
        == "SELECT %(me)s, 'it''s :not', n::text, 5 %% 2"
    )


def test_a_store_is_served_only_once_migrated_and_migrating_twice_at_once_is_safe(postgres):
    url = postgres.new_database()
    try:
        db = open_db(url)
        try:
            assert schema_version(db) is None
            with pytest.raises(ConfigError, match="run 'parley db migrate'"):
                require_current(db)
            results: list = []
            threads = [
                threading.Thread(target=lambda: results.append(migrate(db, {"k": "v"})))
                for _ in range(3)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            assert sorted(results, key=str) == sorted(
                [(None, SCHEMA_VERSION)] + [(SCHEMA_VERSION, SCHEMA_VERSION)] * 2, key=str
            )
            require_current(db)
            db.execute("UPDATE parley_meta SET value = '99' WHERE key = 'schema_version'")
            with pytest.raises(ConfigError, match="newer than this Parley"):
                migrate(db, {})
        finally:
            db.close()
    finally:
        postgres.drop(url)


def test_a_shared_budget_allows_exactly_its_size_then_says_how_long_to_wait(postgres):
    url = postgres.new_database()
    try:
        db = open_db(url)
        try:
            migrate(db, {})
            assert isinstance(db, PostgresDatabase)
            other = PostgresDatabase(url)  # a second process's pool
            try:
                waits = [
                    (db if i % 2 else other).take_budget("guest:10.0.0.1", 10) for i in range(14)
                ]
            finally:
                other.close()
            assert waits[:10] == [None] * 10
            assert all(wait is not None and 0 < wait <= 6.1 for wait in waits[10:]), waits
            assert db.take_budget("guest:10.0.0.2", 10) is None  # another key has its own budget
        finally:
            db.close()
    finally:
        postgres.drop(url)


def test_a_store_made_by_an_earlier_version_gets_todays_triggers_when_opened(tmp_path):
    db = open_db(tmp_path / "club.db")
    db.execute("DROP TRIGGER bump_tokens_update")
    db.execute(
        "CREATE TRIGGER bump_tokens_update AFTER UPDATE ON tokens "
        "BEGIN UPDATE revision SET n = n + 1 WHERE id = 1; END"
    )  # as the first version made it
    ana = club_ops.add_principal(db, "ana", "Ana", status="member")
    minted = tokens.mint(
        db,
        principal_id=ana.id,
        agent_id=club_ops.add_agent(db, "ana", "helper"),
        scopes={"club:read"},
    )
    db.close()
    db = open_db(tmp_path / "club.db")
    before = db.revision()
    token_rows.touch(db, digest(minted.token), "2026-12-03T00:00:00.000000Z")
    assert db.revision() == before


def _sample(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_on_postgresql_a_remembered_tokens_request_is_one_round_trip_and_every_call_is_audited(
    postgres, tmp_path
):
    """The budget and the revision to resolve at travel in one statement: a request of a token the
    resolver remembers makes exactly one round trip, and its audit row is written after it by the
    audit writer."""
    url = postgres.new_database()
    try:
        with running_club(tmp_path, env={"PARLEY_DATABASE_URL": url}) as club:
            async with connect(club.url, club.tokens.member.token) as client:
                assert not (
                    await client.call_tool("whoami", {})
                ).is_error  # first sight: the chain is read
                statements = _sample("parley_store_statements_total", source="request")
                admitted = _sample("parley_requests_total", lane="member", outcome="admitted")
                for _ in range(20):
                    answer = await client.call_tool("whoami", {})
                    assert not answer.is_error and answer.structured_content["lane"] == "member"
                made = _sample("parley_store_statements_total", source="request") - statements
                requests = (
                    _sample("parley_requests_total", lane="member", outcome="admitted") - admitted
                )
            assert requests >= 20 and made == requests, (made, requests)
            rows = (
                club.db().execute("SELECT count(*) FROM audit WHERE tool = 'whoami'").fetchone()[0]
            )
            assert rows == 21  # not one lost, not one written twice
    finally:
        postgres.drop(url)
