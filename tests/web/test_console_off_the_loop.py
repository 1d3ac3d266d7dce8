"""A console page that waits on the store waits in a worker thread, never on the event loop: on
PostgreSQL (a store over the network), a page held up by a lock holds up no other caller of the process."""

from __future__ import annotations

import asyncio

import httpx2
import psycopg
import pytest

from tests.console_helpers import ConsoleUser


async def waiting_on_a_lock(url: str, table: str) -> None:
    """Until PostgreSQL shows a connection waiting for the lock on `table`: the page is inside its read."""
    with psycopg.connect(url, autocommit=True) as watcher:
        for _ in range(600):
            waiting = watcher.execute(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass",
                (table,),
            ).fetchone()
            if waiting and waiting[0]:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"no request waited on the lock on {table}")


@pytest.mark.parametrize("backend", ["postgresql"])
@pytest.mark.parametrize(
    ("path", "table"),
    [("/console/rules", "rules"), ("/console/queue", "escalations"), ("/console", "principals")],
)
async def test_a_console_page_waiting_on_the_store_holds_up_no_other_caller(
    club, backend, path, table
):
    url = club.settings.database_url
    assert url is not None
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        with psycopg.connect(url) as locker:
            locker.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            page = asyncio.create_task(ana.get(path))
            await waiting_on_a_lock(url, table)
            async with httpx2.AsyncClient(timeout=30) as other:
                # on the event loop, this would wait for the lock too (and time out: the lock is held)
                live = await asyncio.wait_for(other.get(f"{club.live.base}/livez"), 30)
            assert live.status_code == 200
            assert not page.done()  # the page still waits on the store, in its worker thread
            locker.rollback()
        answered = await asyncio.wait_for(page, 30)
    assert answered.status_code == 200
