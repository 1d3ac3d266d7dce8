"""A worker that starts while PostgreSQL is down waits for it, saying so once, rather than dying with
a traceback for the supervisor to restart in a loop (seen in CI: the second worker of `parley serve
--workers 2` still building its app when the fault run stopped the store)."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from server.app import _when_the_store_answers
from server.store.postgres import PostgresDatabase


def test_a_worker_built_during_an_outage_waits_for_the_store_and_says_so_once(
    postgres, caplog: pytest.LogCaptureFixture
) -> None:
    url = postgres.new_database()
    name = url.rsplit("/", 1)[-1]
    db = PostgresDatabase(url, pool_size=2)
    try:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres.admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        )
        built: list[int] = []
        attempts: list[float] = []

        def build() -> int:
            attempts.append(time.monotonic())
            return int(db.execute("SELECT 41 + 1").fetchone()[0])  # type: ignore[index]

        with caplog.at_level(logging.INFO, logger="parley.app"):
            worker = threading.Thread(target=lambda: built.append(_when_the_store_answers(build)))
            worker.start()
            deadline = time.monotonic() + 30
            while len(attempts) < 3:  # it keeps trying, and is still waiting
                assert time.monotonic() < deadline and worker.is_alive()
                time.sleep(0.1)
            assert built == []
            postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
            worker.join(timeout=30)
        assert built == [42]
        said = [r.getMessage() for r in caplog.records if r.name == "parley.app"]
        assert said == [
            "store unavailable while this worker starts: it waits for the store",
            "store reachable again: this worker starts",
        ]
    finally:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        db.close()
        postgres.drop(url)
