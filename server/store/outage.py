"""Fail fast while the store is down, say so once, and notice by itself when it is back.

With PostgreSQL stopped, every request waited the pool's whole timeout (10 s) and then said the
server was busy, and an outage of a few seconds wrote ~400 log lines. Once a connection is found
broken, the store counts as down: callers are refused at once (503 with Retry-After, by the gate;
a page or a tool error saying the store is unavailable), one caller every TRIAL_EVERY seconds tries
it again, and the first trial that reaches it ends the outage. One log line when an outage begins,
one when it ends: what happens meanwhile is said in those lines (audit rows that could not be
written are counted into the second), and the connection pool's own warnings, one per connection
lost and one per reconnection attempt, are not repeated (`PoolWarnings`). A connection opened
before an outage began and found lost after it ended is that outage's, not a new one: no flapping."""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("parley.store")

TRIAL_EVERY = 0.5  # seconds between attempts to reach a store that is down

# psycopg_pool 3.2-3.3 warns, at WARNING, once a connection it finds lost and once each attempt to
# reconnect (`psycopg_pool.pool`): during an outage of a few seconds, a dozen lines a process. These
# are its templates (`record.msg`, before formatting); the outage is the store's to say, once.
POOL_CONNECTION_WARNINGS = frozenset(
    {
        "error connecting in %r: %s",
        "discarding closed connection: %s",
        "discarding broken connection: %s",
        "reconnection attempt in pool %r failed after %s sec",
    }
)


class PoolWarnings(logging.Filter):
    """Drops psycopg_pool's per-connection warnings; any other record of the pool's goes through."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg in POOL_CONNECTION_WARNINGS)


def quiet_pool_connection_warnings() -> None:
    pool_log = logging.getLogger("psycopg.pool")
    if not any(isinstance(f, PoolWarnings) for f in pool_log.filters):
        pool_log.addFilter(PoolWarnings())


class Outage:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None  # monotonic time the outage began; None: the store answers
        self.last_began = float("-inf")  # when the latest outage began (it may have ended since)
        self._next_trial = 0.0
        self._unwritten_audit = 0

    @property
    def down(self) -> bool:
        return self.since is not None

    def trial_due(self) -> bool:
        """While down: True for one caller every TRIAL_EVERY seconds (that caller tries the store)."""
        with self._lock:
            moment = time.monotonic()
            if moment < self._next_trial:
                return False
            self._next_trial = moment + TRIAL_EVERY
            return True

    def began(self, reason: str, opened: float | None = None) -> None:
        """`opened`: when the connection found lost was opened. One opened before the latest outage
        began was cut by it: found lost after that outage ended, it says nothing of the store now."""
        with self._lock:
            if opened is not None and opened < self.last_began:
                return
            if self.since is None:
                self.since = self.last_began = time.monotonic()
                self._next_trial = self.since + TRIAL_EVERY
                log.error(
                    "store unavailable (%s): answering 503 with Retry-After until it is back",
                    reason,
                )

    def ended(self) -> None:
        with self._lock:
            if self.since is not None:
                unwritten = self._unwritten_audit
                log.warning(
                    "store reachable again after %.1f s of outage%s",
                    time.monotonic() - self.since,
                    f"; {unwritten} audit row(s) of calls under way when it began could not be written"
                    if unwritten
                    else "",
                )
                self.since = None
                self._unwritten_audit = 0

    def audit_unwritten(self, rows: int) -> bool:
        """Count audit rows lost to this outage, said when it ends; False when the store is not down
        (the caller says so itself)."""
        with self._lock:
            if self.since is None:
                return False
            self._unwritten_audit += rows
            return True
