"""Admissions sent together on PostgreSQL (`server.store.batching`): the requests that arrive while a
budget statement is in flight go in the next one. Spent as that many statements one after another
would spend them, read at a revision after each arrived, failed together (and at once) when the store
goes away. Each test holds a statement in flight with a real one behind it, so what goes together is
decided by arrival, never by timing."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import anyio
import httpx2
import pytest

from server.identity import tokens
from server.store import batching, outage
from server.store.database import StoreUnavailable
from server.store.migrations import migrate
from server.store.opening import open_db
from server.store.postgres import PostgresDatabase
from tests.conftest import connect, running_club


@pytest.fixture
def store(postgres) -> Iterator[PostgresDatabase]:
    url = postgres.new_database()
    db = open_db(url)
    try:
        migrate(db, {})
        assert isinstance(db, PostgresDatabase)
        yield db
    finally:
        db.close()
        postgres.drop(url)


class Held:
    """The store's own statement, with the first one held in flight (after it ran) until released:
    its event loop is free meanwhile, as it is while any statement is in flight."""

    def __init__(self, spend: batching.Spend, before: bool = False):
        self.spend = spend
        self.before = before  # hold before the first statement runs, not after
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    async def __call__(self, asks: Sequence[tuple[str, int]]) -> tuple[list[float | None], int]:
        self.calls += 1
        if self.calls == 1 and self.before:
            self.entered.set()
            await anyio.to_thread.run_sync(self.release.wait, 30)
        answer = await self.spend(asks)
        if self.calls == 1 and not self.before:
            self.entered.set()
            await anyio.to_thread.run_sync(self.release.wait, 30)
        return answer


def hold(batcher: batching.BudgetBatcher, before: bool = False) -> Held:
    held = Held(batcher._spend, before)
    batcher._spend = held
    return held


async def until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(10):
        while not condition():
            await anyio.sleep(0.005)


def tat(db: PostgresDatabase, key: str) -> float:
    return float(db.execute("SELECT tat FROM rate_buckets WHERE key = ?", [key]).fetchone()[0])


# --- the statement ---------------------------------------------------------------------------------


def test_several_requests_of_one_key_in_one_statement_are_spent_as_one_after_another(store):
    waits, _ = store.take_budgets_reading_revision([("k", 10)] * 13 + [("other", 10)])
    assert waits[:10] == [None] * 10 and waits[13] is None  # the budget, and another key's own
    # the bucket after ten: 60 s ahead of now against 54 s allowed; each refusal waits for it
    assert all(w is not None and 5.5 < w <= 6.0 for w in waits[10:13]), waits
    before = tat(store, "k")
    again, _ = store.take_budgets_reading_revision([("k", 10)] * 3)
    assert all(w is not None and 5.5 < w <= 6.0 for w in again), again
    assert tat(store, "k") == before  # refused: the bucket as it was
    # partly spent: four one at a time, then eight together: six of them fit
    assert [store.take_budget("p", 10) for _ in range(4)] == [None] * 4
    waits, _ = store.take_budgets_reading_revision([("p", 10)] * 8)
    assert waits[:6] == [None] * 6
    assert all(w is not None and 5.5 < w <= 6.0 for w in waits[6:]), waits


def test_two_processes_sending_together_spend_exactly_the_budget(store):
    """Each statement spends on the bucket as it finds it locked: never more than the budget, and two
    processes locking several keys never wait on each other in a cycle."""
    other = PostgresDatabase(store.url)
    allowed = [0, 0]
    failures: list[BaseException] = []

    def spend(db: PostgresDatabase, side: int, keys: list[str]) -> None:
        try:
            for _ in range(10):
                waits, _ = db.take_budgets_reading_revision([(key, 6) for key in keys] * 3)
                allowed[side] += sum(
                    1 for key, w in zip(keys * 3, waits, strict=True) if w is None and key == "c"
                )
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    try:
        threads = [
            threading.Thread(target=spend, args=(store, 0, ["c", "d"])),
            threading.Thread(target=spend, args=(other, 1, ["d", "c"])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        other.close()
    assert not failures, failures
    assert sum(allowed) == 6  # 60 asks of "c" within seconds, 6 a minute


# --- going together ---------------------------------------------------------------------------------


async def test_requests_that_arrive_while_a_statement_is_in_flight_go_in_one_statement(store):
    batcher = store.together
    held = hold(batcher)
    first = asyncio.create_task(batcher.take("token:a", 10))
    await anyio.to_thread.run_sync(held.entered.wait)
    rest = [asyncio.create_task(batcher.take(f"token:{key}", 10)) for key in "abbbc"]
    await until(lambda: batcher.queued == 5)
    held.release.set()
    answers = [await first] + [await task for task in rest]
    assert held.calls == 2 and (batcher.sent, batcher.carried) == (2, 6)
    assert [wait for wait, _ in answers] == [None] * 6


async def test_a_token_revoked_is_refused_from_the_next_request_also_when_they_go_together(
    postgres, tmp_path
):
    url = postgres.new_database()
    try:
        with running_club(tmp_path, env={"PARLEY_DATABASE_URL": url}) as club:
            member = club.tokens.member
            async with connect(club.url, member.token) as client:  # seen: kept by the resolver
                assert not (await client.call_tool("whoami", {})).is_error
            batcher = club.live.parley.db.together
            held = hold(batcher)
            headers = {
                "Authorization": f"Bearer {member.token}",
                "Accept": "application/json, text/event-stream",
            }
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            sent, carried = batcher.sent, batcher.carried
            async with httpx2.AsyncClient(timeout=30) as http:
                first = asyncio.create_task(http.post(club.url, headers=headers, json=ping))
                await anyio.to_thread.run_sync(held.entered.wait)  # its statement has run
                db = club.db()
                assert tokens.revoke(db, member.token) is not None
                later = [
                    asyncio.create_task(http.post(club.url, headers=headers, json=ping))
                    for _ in range(8)
                ]
                await until(lambda: batcher.queued == 8)
                held.release.set()
                answered = await first
                refused = [await task for task in later]
            # in flight when the token was revoked: admitted at the revision its statement read, or
            # refused if this process heard of the revocation first and resolved it afresh
            assert answered.status_code in (200, 401)
            assert all(r.status_code == 401 for r in refused), [r.status_code for r in refused]
            assert all("token was revoked" in r.json()["error_description"] for r in refused)
            assert (batcher.sent - sent, batcher.carried - carried) == (2, 9)
    finally:
        postgres.drop(url)


async def test_each_request_reads_the_revision_after_it_arrived(store):
    batcher = store.together
    held = hold(batcher)
    first = asyncio.create_task(batcher.take("guest:10.0.0.1", 10))
    await anyio.to_thread.run_sync(held.entered.wait)  # read, not yet answered
    other = PostgresDatabase(store.url)
    try:
        other.execute("UPDATE principals SET status = status")  # moves the revision
    finally:
        other.close()
    second = asyncio.create_task(batcher.take("guest:10.0.0.2", 10))
    await until(lambda: batcher.queued == 1)
    held.release.set()
    (_, before), (_, after) = await first, await second
    assert after > before and after == store.revision()


# --- failing ----------------------------------------------------------------------------------------


async def test_a_store_that_goes_away_fails_every_request_of_the_statement_at_once(store, postgres):
    batcher = store.together
    name = store.url.rsplit("/", 1)[-1]
    held = hold(batcher)
    first = asyncio.create_task(batcher.take("token:a", 10))
    await anyio.to_thread.run_sync(held.entered.wait)
    rest = [asyncio.create_task(batcher.take(f"token:{n}", 10)) for n in range(5)]
    await until(lambda: batcher.queued == 5)
    try:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres.admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        )
        held.release.set()
        assert (await first)[0] is None
        for task in rest:  # the same answer as a request sent alone would get
            with pytest.raises(StoreUnavailable, match="the store did not answer"):
                await task
        assert store.outage.down and not batcher.usable  # callers now take their own path
        sent = batcher.sent
        with pytest.raises(StoreUnavailable, match="unavailable"):
            await batcher.take("token:a", 10)  # refused without a statement
        assert batcher.sent == sent
    finally:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")


async def test_a_request_still_waiting_for_its_turn_is_answered_busy_and_never_sent(
    store, monkeypatch
):
    monkeypatch.setattr(batching, "WAIT", 0.05)
    batcher = store.together
    held = hold(batcher)
    first = asyncio.create_task(batcher.take("token:a", 10))
    await anyio.to_thread.run_sync(held.entered.wait)
    with pytest.raises(StoreUnavailable, match="busy"):
        await batcher.take("token:b", 10)
    held.release.set()
    assert (await first)[0] is None
    assert (batcher.sent, batcher.carried, held.calls) == (1, 1, 1)
    assert (
        store.execute("SELECT count(*) FROM rate_buckets WHERE key = 'token:b'").fetchone()[0] == 0
    )


async def test_a_lost_connection_fails_closed_and_a_fresh_one_is_opened_once_the_store_answers(
    store, postgres, monkeypatch
):
    """Each event loop sends on a connection of its own: lost, it fails its statement and counts as an
    outage; once the store answers again the next statement goes on a fresh connection."""
    monkeypatch.setattr(outage, "TRIAL_EVERY", 0.0)
    batcher = store.together
    name = store.url.rsplit("/", 1)[-1]
    assert (await batcher.take("token:a", 10))[0] is None
    postgres.admin(
        f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
    )
    with pytest.raises(StoreUnavailable, match="the store did not answer"):
        await batcher.take("token:a", 10)
    assert store.outage.down and not batcher.usable
    # a caller's own path tries the store, finds it answering and ends the outage
    assert await anyio.to_thread.run_sync(store.revision) >= 0
    assert not store.outage.down and batcher.usable
    wait, current = await batcher.take("token:a", 10)
    assert wait is None and current == store.revision()
    assert (batcher.sent, batcher.carried) == (3, 3)
    # two spent, six seconds each: the statement that failed spent nothing
    assert 9 < tat(store, "token:a") - time.time() <= 12


async def test_a_cancelled_request_is_never_sent_before_its_turn_and_waits_for_its_statement_after(
    store,
):
    batcher = store.together
    held = hold(batcher)
    first = asyncio.create_task(batcher.take("token:a", 10))
    await anyio.to_thread.run_sync(held.entered.wait)  # its statement ran and is held in flight
    second = asyncio.create_task(batcher.take("token:b", 10))
    await until(lambda: batcher.queued == 1)
    first.cancel()
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second  # taken back at once: never sent
    await asyncio.sleep(0.05)
    assert not first.done()  # its statement is still in flight: what it spent is not known yet
    held.release.set()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert (batcher.sent, batcher.carried, held.calls) == (1, 1, 1)
    spent = store.execute("SELECT count(*) FROM rate_buckets WHERE key = 'token:a'").fetchone()
    assert spent[0] == 1  # the statement it was sent in ran
    assert (
        store.execute("SELECT count(*) FROM rate_buckets WHERE key = 'token:b'").fetchone()[0] == 0
    )


# --- what a statement costs the database --------------------------------------------------------


async def test_the_loop_connection_plans_the_budget_statement_once_and_keeps_the_urls_options(
    postgres,
):
    """Prepared after a few runs, the budget statement was planned again on every run (custom plans):
    a third of the database's time a statement. The loop connection asks for the generic plan, on
    top of whatever options the operator's URL gives."""
    url = postgres.new_database()
    db = open_db(url + "?options=-c%20statement_timeout%3D4321")
    try:
        migrate(db, {})
        assert isinstance(db, PostgresDatabase)
        for _ in range(12):  # beyond psycopg's prepare_threshold
            assert (await db.together.take("token:a", 1000))[0] is None
            assert (await db.together.take("token:b", 1000))[0] is None
        conn = db._loop_conns[asyncio.get_running_loop()]
        settings = await (await conn.execute("SHOW statement_timeout")).fetchone()
        assert settings == ("4321ms",)
        plans = await (
            await conn.execute(
                "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements"
            )
        ).fetchall()
        budget = [p for p in plans if "rate_buckets" in p[0]]
        assert len(budget) == 1, plans  # one text, whatever it spends
        assert all(custom == 0 and generic >= 1 for _, generic, custom in budget), budget
    finally:
        db.close()
        postgres.drop(url)
