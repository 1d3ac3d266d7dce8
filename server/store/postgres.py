"""PostgreSQL as the store, for several processes on several machines (`PARLEY_DATABASE_URL`).

The store modules' SQL runs unchanged: `?` and `:name` parameters are rewritten once per
statement. Each statement outside a unit of work borrows a pooled connection in autocommit; a
unit holds one connection for its whole transaction and takes the store's write lock (an advisory
transaction lock) first, so write units are serialized cluster-wide exactly as `BEGIN IMMEDIATE`
serializes them on SQLite: a read-then-write (`MAX(version)+1`, a handle taken?) cannot race.

The schema is created and upgraded only by `parley db migrate` (`store.migrations`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from server.errors import ConfigError
from server.store.batching import BudgetBatcher
from server.store.database import Database, Params, PoolStats, Row, StoreUnavailable, integer
from server.store.outage import Outage, quiet_pool_connection_warnings
from server.store.postgres_budgets import budget_statement, plan_once
from server.store.postgres_statements import NO_ANSWER, Rows, run, translate, uncounted

__all__ = ["PostgresDatabase", "translate"]

POOL_WAIT = (
    1.5  # seconds a statement waits for a pooled connection before answering "busy" (was 10)
)
UNAVAILABLE = "the store is unavailable; nothing changed, retry in a second"
# pg_advisory_xact_lock key of the store's one write lock ("parl").
WRITE_LOCK = 0x7061726C


class PostgresDatabase(Database):
    backend = "postgresql"
    shared = True
    over_network = True

    def __init__(self, url: str, pool_size: int = 20):
        self.url = url
        self.pool_size = pool_size
        quiet_pool_connection_warnings()  # an outage is said once, by `self.outage`
        # When each pool and loop connection was opened: a loss found on one opened before the latest
        # outage began is that outage's (`Outage.began`), not a new one.
        self._opened: dict[object, float] = {}
        try:
            self.pool = self._open_pool(15)
        except Exception as exc:  # the URL is never echoed: it may carry a password
            raise ConfigError(
                f"cannot reach the PostgreSQL store ({type(exc).__name__}); check "
                "PARLEY_DATABASE_URL and that the server is up"
            ) from None
        self._local = threading.local()
        self.outage = Outage()
        # Admissions sent together: one budget statement for the requests that arrived while the
        # previous one was in flight, sent by each event loop on a connection of its own
        # (`server.store.batching`, `spend_together`).
        self.together = BudgetBatcher(self.spend_together, lambda: self.outage.down)
        self._loop_conns: dict[asyncio.AbstractEventLoop, psycopg.AsyncConnection] = {}
        self._loop_options = plan_once(url)
        # Told of every round trip to the database (a statement; a unit's BEGIN, lock and COMMIT):
        # the server hands its metrics' counter here, so the store stays a leaf.
        self.counted: Callable[[int], None] = uncounted

    def _open_pool(self, wait: float) -> ConnectionPool:
        pool = ConnectionPool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            kwargs={"autocommit": True},
            name="parley",
            timeout=POOL_WAIT,
            open=False,
        )
        try:
            pool.open(wait=True, timeout=wait)
        except Exception:
            pool.close()
            raise
        self._opened[pool] = time.monotonic()
        return pool

    def _reachable(self) -> bool:
        """A fresh connection outside the pool answers (the pool may be backing off between attempts)."""
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def _try_again(self) -> None:
        """During an outage: refuse at once, unless this caller is the one that tries the store now. A
        store that answers gets a fresh pool (the old one's reconnection backs off up to minutes) and
        the old pool is closed once its borrowed connections come back."""
        if not self.outage.trial_due() or not self._reachable():
            raise StoreUnavailable(UNAVAILABLE)
        try:
            fresh = self._open_pool(2)
        except Exception:
            raise StoreUnavailable(UNAVAILABLE) from None
        old, self.pool = self.pool, fresh
        threading.Thread(
            target=self._retire, args=(old,), name="parley-pool-retire", daemon=True
        ).start()
        self.outage.ended()

    def _retire(self, pool: ConnectionPool) -> None:
        pool.close(timeout=10)
        self._opened.pop(pool, None)

    # -- statements ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def _borrowed(self) -> Iterator[psycopg.Connection]:
        if self.outage.down:
            self._try_again()
        pool = self.pool
        try:
            with pool.connection() as conn:
                try:
                    yield conn
                except (StoreUnavailable, psycopg.OperationalError) as exc:
                    if (
                        conn.broken
                    ):  # the connection was lost, not just one statement: the store is down
                        self.outage.began(
                            "a connection to it was lost", opened=self._opened.get(pool)
                        )
                    if isinstance(exc, psycopg.OperationalError):
                        raise StoreUnavailable(UNAVAILABLE) from None
                    raise
        except (
            PoolClosed
        ):  # another thread swapped in a fresh pool as the store came back; this one was retired
            raise StoreUnavailable(
                "the store's connections were being renewed; nothing changed, retry shortly"
            ) from None
        except PoolTimeout:
            if not self._reachable():
                self.outage.began("no connection could be made")
                raise StoreUnavailable(UNAVAILABLE) from None
            raise StoreUnavailable(
                "every connection to the store is busy; nothing changed, retry shortly"
            ) from None

    def _unit_conn(self) -> psycopg.Connection | None:
        return getattr(self._local, "conn", None)

    def execute(self, sql: str, parameters: Params = None) -> Rows:
        conn = self._unit_conn()
        if conn is not None:
            return run(conn, sql, parameters, self.counted)
        with self._borrowed() as conn:
            return run(conn, sql, parameters, self.counted)

    def query(self, sql: str, params: Params = None) -> Iterator[Row]:
        rows = self.execute(sql, params)
        names = [column[0] for column in rows.description or ()]
        return iter([dict(zip(names, row, strict=True)) for row in rows.fetchall()])

    def insert(self, table: str, row: Mapping[str, object]) -> int:
        if not re.fullmatch(r"\w+", table) or not all(
            re.fullmatch(r"\w+", column) for column in row
        ):
            raise ValueError(f"not a table or column name: {table}")
        columns = ", ".join(row)
        values = ", ".join(f":{column}" for column in row)
        found = self.execute(
            f"INSERT INTO {table} ({columns}) VALUES ({values}) RETURNING id", dict(row)
        ).fetchone()
        if found is None:
            raise RuntimeError(f"insert into {table} returned no row id")
        return integer(found[0])

    @contextlib.contextmanager
    def write(self) -> Iterator[Database]:
        conn = self._unit_conn()
        if conn is not None:
            with conn.transaction():  # a savepoint inside the unit already open on this thread
                yield self
            return
        with self._borrowed() as conn:
            self._local.conn = conn
            self.counted(3)  # BEGIN, the write lock, COMMIT: three round trips of their own
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    yield self
            finally:
                self._local.conn = None

    def count_round_trips(self, counted: Callable[[int], None]) -> None:
        self.counted = counted

    def audit_unwritten(self, rows: int) -> bool:
        return self.outage.audit_unwritten(rows)

    def pool_stats(self) -> PoolStats:
        stats = self.pool.get_stats()
        size = stats.get("pool_size", 0)
        return PoolStats(
            up=not self.outage.down,
            open=size,
            in_use=size - stats.get("pool_available", 0),
            waiting=stats.get("requests_waiting", 0),
        )

    def close(self) -> None:
        self.together.close()
        self.pool.close()
        for conn in list(self._loop_conns.values()):
            conn.pgconn.finish()  # what AsyncConnection.close does; no wait, from any thread
        self._loop_conns.clear()

    # -- the revision -------------------------------------------------------------------------
    def revision(self) -> int:
        """Read for every request, never taken from the change feed: a token revoked or a mandate
        narrowed on another machine must hold from the very next request, however late the
        announcement arrives. The feed only wakes live sessions."""
        row = self.execute("SELECT n FROM revision WHERE id = 1").fetchone()
        return integer(row[0]) if row else 0

    def announce_inbox(self, principal_id: int) -> None:
        self.execute(
            "SELECT pg_notify('parley_inbox', ? || ':' || extract(epoch FROM clock_timestamp())::text)",
            [str(principal_id)],
        )

    # -- shared budgets -----------------------------------------------------------------------
    def take_budget(self, key: str, per_minute: int) -> float | None:
        """Spend one request of `key`'s per-minute budget, cluster-wide; None if allowed, else the
        seconds until one is."""
        return self.take_budgets_reading_revision([(key, per_minute)])[0][0]

    def take_budget_reading_revision(self, key: str, per_minute: int) -> tuple[float | None, int]:
        """`take_budgets_reading_revision` for one request."""
        waits, current = self.take_budgets_reading_revision([(key, per_minute)])
        return waits[0], current

    def take_budgets_reading_revision(
        self, asks: Sequence[tuple[str, int]]
    ) -> tuple[list[float | None], int]:
        """One round trip for what requests need of the store before their tools run: spend one
        request of each ask's (key, per-minute) budget and read the revision they are resolved at.
        One statement, so all of it happens or none of it does. (Audit rows are never written here:
        the audit writer writes them in its own statement, `AuditTrail.run_writer`.)

        GCRA on the database's clock, spent on the bucket as the statement finds it locked (another
        process's statement waits for this one). Several asks of one key are spent in their order as
        that many statements one after another would: one row a key, so the statement counts how
        many of them the bucket allows; every ask after the first refused one is refused too (a
        refusal leaves the bucket as it was, so nothing later in the same instant fits). Buckets are
        locked in key order, so two processes' statements never wait on each other in a cycle.

        (Each ask's wait, in order: None if allowed, else the seconds until one is; the revision.)
        A refused ask's wait is its bucket's after the asks of its key that were allowed."""
        sql, values, answer = budget_statement(asks)
        return answer(self.execute(sql, values).fetchall())

    async def spend_together(
        self, asks: Sequence[tuple[str, int]]
    ) -> tuple[list[float | None], int]:
        """`take_budgets_reading_revision` sent from the running event loop on its own connection
        (`server.store.batching` sends one at a time on each loop): nothing waits in a thread, and
        the loop is free while the statement is in flight. A connection found lost counts as an
        outage, as a pooled one's does; the next statement after it opens a fresh one."""
        sql, values, answer = budget_statement(asks)
        conn = await self._loop_connection()
        self.counted(1)
        try:
            cursor = conn.cursor()
            await cursor.execute(translate(sql), values)
            rows = await cursor.fetchall()
        except psycopg.OperationalError:
            if conn.broken or conn.closed:
                opened = self._opened.get(conn)
                self._drop_loop_connection(conn)
                self.outage.began("a connection to it was lost", opened=opened)
            raise StoreUnavailable(NO_ANSWER) from None
        except Exception:
            raise
        except BaseException:  # cancelled mid-statement: what the connection holds is not known
            self._drop_loop_connection(conn)
            raise
        return answer(rows)

    async def _loop_connection(self) -> psycopg.AsyncConnection:
        """The running event loop's connection, opened (without blocking the loop) when it has none."""
        loop = asyncio.get_running_loop()
        conn = self._loop_conns.get(loop)
        if conn is not None and not conn.closed:
            return conn
        if conn is not None:
            self._opened.pop(conn, None)
        try:
            conn = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=2, options=self._loop_options
            )
        except psycopg.Error:
            self.outage.began("no connection could be made")
            raise StoreUnavailable(UNAVAILABLE) from None
        self._loop_conns[loop] = conn
        self._opened[conn] = time.monotonic()
        return conn

    def _drop_loop_connection(self, conn: psycopg.AsyncConnection) -> None:
        for loop, kept in list(self._loop_conns.items()):
            if kept is conn:
                del self._loop_conns[loop]
        self._opened.pop(conn, None)
        conn.pgconn.finish()
