"""Liveness and readiness, for a balancer or an orchestrator. `/livez`: this process answers.
`/readyz` (and `/healthz`, its older name): it can serve, meaning its store answers within
STORE_DEADLINE, its change listener is connected (PostgreSQL), and its answering pool has a worker
that is ready or starting (they start with the server): every worker having failed to start is not
ready. Not ready is a 503 whose JSON body names each problem."""

from __future__ import annotations

import os
from collections.abc import Callable

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse

from server.answering.pool import AnswererPool
from server.metrics import ANSWERING_ALIVE, LISTENER_UP, PROCESS_UP, STORE_POOL, STORE_UP
from server.store.database import Database, StoreUnavailable, probe

STORE_DEADLINE = 1.0  # seconds the store has to answer a readiness probe
NO_STORE = {"cache-control": "no-store"}


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie (Linux's /proc; elsewhere, whether it exists)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[-1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


class Health:
    def __init__(
        self,
        db: Database,
        pool: AnswererPool,
        facts: dict[str, str | int | None],
        listening: Callable[[], bool] | None = None,
    ):
        self.db = db
        self.pool = pool
        self.facts = facts
        self.listening = (
            listening  # the change listener's state (PostgreSQL), set once it is started
        )

    def _probe_store(self) -> None:
        probe(self.db)

    async def problems(self) -> dict[str, str]:
        found: dict[str, str] = {}
        try:
            with anyio.fail_after(STORE_DEADLINE):
                await anyio.to_thread.run_sync(self._probe_store, abandon_on_cancel=True)
        except TimeoutError:
            found["store"] = f"did not answer within {STORE_DEADLINE:g} s"
        except StoreUnavailable as exc:
            found["store"] = str(exc)
        if self.listening is not None and not self.listening():
            found["change_listener"] = "not connected to PostgreSQL (reconnecting)"
        # off the loop: it takes the free slots from their queue (never waits, never starts a worker)
        answering = await anyio.to_thread.run_sync(self.pool.readiness)
        if answering is not None:
            found["answering"] = answering
        return found

    def sample(self) -> None:
        """Set this process's gauges from what it knows now, without asking the store anything."""
        PROCESS_UP.set(1)
        pids = self.pool.pids()
        ANSWERING_ALIVE.set(sum(1 for pid in pids if _running(pid)))
        stats = self.db.pool_stats()
        if stats is not None:
            STORE_UP.set(1 if stats.up else 0)
            STORE_POOL.labels("open").set(stats.open)
            STORE_POOL.labels("in_use").set(stats.in_use)
            STORE_POOL.labels("waiting").set(stats.waiting)
            LISTENER_UP.set(1 if self.listening is not None and self.listening() else 0)
        else:
            STORE_UP.set(1)

    async def keep_sampling(self, every: float = 2.0) -> None:
        while True:
            self.sample()
            await anyio.sleep(every)

    async def live(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "alive", "pid": os.getpid()}, headers=NO_STORE)

    async def ready(self, request: Request) -> JSONResponse:
        problems = await self.problems()
        if not problems:
            return JSONResponse({**self.facts, "status": "ok", "problems": {}}, headers=NO_STORE)
        return JSONResponse(
            {**self.facts, "status": "unavailable", "problems": problems},
            status_code=503,
            headers={**NO_STORE, "retry-after": "1"},
        )
