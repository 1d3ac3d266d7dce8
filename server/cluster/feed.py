"""The change feed: one listening PostgreSQL connection a process, so a change committed anywhere in
the cluster (another process, another machine, the CLI) reaches this process's live sessions.

The revision trigger and inbox decisions send `NOTIFY` in the transaction that makes the change,
so nothing is announced that did not commit. A notification sent while the listener is
disconnected is lost: after every (re)connect the feed listens again and then has everything swept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from server.store.postgres import PostgresDatabase
from server.store.postgres_listen import Unreachable, listening

log = logging.getLogger("parley.feed")

CHANNELS = ("parley_revision", "parley_inbox")
APPLICATION_NAME = "parley-change-feed"


def _parse(payload: str) -> tuple[int, float | None]:
    """'<number>:<epoch seconds>' (or a bare number): the number and when it was sent."""
    number, _, sent = payload.partition(":")
    try:
        return int(number), (float(sent) if sent else None)
    except ValueError:
        return -1, None


class ChangeFeed:
    """Calls `on_revision()` when scopes may have moved, `on_inbox(principal_id)` when a decision
    reached an inbox (`None`: any inbox, after a reconnect), from the feed's own thread."""

    def __init__(
        self,
        db: PostgresDatabase,
        on_revision: Callable[[], None],
        on_inbox: Callable[[int | None], None],
        on_lag: Callable[[str, float], None] = lambda c, s: None,
        heartbeat_seconds: float = 5.0,
    ):
        self.db = db
        self.on_revision = on_revision
        self.on_inbox = on_inbox
        self.on_lag = on_lag
        self.heartbeat_seconds = heartbeat_seconds
        self.connected = threading.Event()
        self.reconnects = 0
        self._down_reported = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="parley-change-feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        backoff = 0.1
        failures = 0
        while not self._stop.is_set():
            try:
                self._listen()
                backoff = 0.1
                failures = 0
            except Exception as exc:  # the connection dropped or could not be made: try again
                if self._stop.is_set():
                    break
                failures += 1
                # Said once an outage, not once an attempt, and not when the first reconnection works
                # (a blip). A reconnection the database refuses is the store's outage, and the store
                # says it (one line a process, whichever of the pool and the feed notices first);
                # only a feed that fails while its store answers speaks for itself.
                if failures >= 2 and isinstance(exc, Unreachable):
                    self.db.outage.began(
                        f"the change feed could not reconnect: {type(exc).__name__}"
                    )
                elif failures >= 2 and not self._down_reported and not self.db.outage.down:
                    self._down_reported = True
                    log.warning(
                        "change feed disconnected (%s: %s); reconnecting",
                        type(exc).__name__,
                        str(exc)[:200],
                    )
            finally:
                self.connected.clear()
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 2.0)

    def _listen(self) -> None:
        with listening(self.db, CHANNELS, APPLICATION_NAME) as conn:
            if self._down_reported:  # the store's own recovery line says it otherwise
                log.info("change feed listening again; sweeping every live session")
            self.reconnects += 1
            self._down_reported = False
            self.connected.set()
            # Whatever was announced while no one listened is lost: sweep everything now.
            self.on_revision()
            self.on_inbox(None)
            beat = time.monotonic()
            while not self._stop.is_set():
                for channel, payload in conn.notifications(timeout=0.5):
                    self._deliver(channel, payload)
                if time.monotonic() - beat >= self.heartbeat_seconds:
                    conn.heartbeat()
                    beat = time.monotonic()

    def _deliver(self, channel: str, payload: str) -> None:
        number, sent = _parse(payload)
        if sent is not None:
            self.on_lag(channel, max(0.0, time.time() - sent))
        if channel == "parley_revision":
            self.on_revision()
        elif channel == "parley_inbox" and number >= 0:
            self.on_inbox(number)
