"""Fail fast while the store is down, say so once, and notice by itself when it is back.

With PostgreSQL stopped, every request waited the pool's whole timeout (10 s) and then said the
server was busy, and an outage of a few seconds wrote ~400 log lines. Once a connection is found
broken, the store counts as down: callers are refused at once (503 with Retry-After, by the gate;
a page or a tool error saying the store is unavailable), one caller every TRIAL_EVERY seconds tries
it again, and the first trial that reaches it ends the outage. One log line when an outage begins,
one when it ends."""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("parley.store")

TRIAL_EVERY = 0.5  # seconds between attempts to reach a store that is down


class Outage:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.since: float | None = None  # monotonic time the outage began; None: the store answers
        self._next_trial = 0.0

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

    def began(self, reason: str) -> None:
        with self._lock:
            if self.since is None:
                self.since = time.monotonic()
                self._next_trial = self.since + TRIAL_EVERY
                log.error(
                    "store unavailable (%s): answering 503 with Retry-After until it is back",
                    reason,
                )

    def ended(self) -> None:
        with self._lock:
            if self.since is not None:
                log.warning(
                    "store reachable again after %.1f s of outage", time.monotonic() - self.since
                )
                self.since = None
