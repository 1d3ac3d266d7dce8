"""Admissions sent together. On PostgreSQL a request spends its budget, reads the revision it is
resolved at and carries audit rows in one statement (`PostgresDatabase.take_budgets_reading_revision`).
Sent one by one from worker threads, under load each request paid a hand-off to a thread, a
statement of its own (on the client and on the server) and a wake-up of the event loop. Here the
requests that arrive while a statement is in flight wait for it to come back and then go together,
as one statement from one thread, and one wake-up of each event loop answers them all. A request
that finds nothing in flight goes at once: without load nothing waits longer than before.

Each request's revision is read by a statement that began after the request arrived, so a token
revoked anywhere is refused from the next request, sent together or not. A statement that fails
fails every request it carried, at once. While the store is known to be down nothing is sent (the
caller takes its own path, which refuses at once and tries the store again now and then); a request
still waiting for its turn after WAIT seconds is answered "busy", and was never sent: nothing spent,
nothing written.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Sequence

import anyio

from server.store.database import StoreUnavailable

LIMIT = 256  # requests one statement carries at most
WAIT = 1.5  # seconds a request waits for its turn, as a statement waits for a pooled connection
BUSY = "every connection to the store is busy; nothing changed, retry shortly"
DOWN = "the store is unavailable; nothing changed, retry in a second"

Rows = Sequence[Sequence[object]]
# (key, per minute) of each request, in order, and the audit rows they carry → each request's wait
# (None: allowed) and the revision
Spend = Callable[[Sequence[tuple[str, int]], Rows], tuple[list[float | None], int]]
Answer = tuple[float | None, int] | BaseException
Settled = list[tuple[asyncio.Future[tuple[float | None, int]], Answer]]  # one loop's answers


class _Ask:
    """One request's part of a statement, and where its answer goes."""

    __slots__ = ("audit", "context", "future", "key", "loop", "per_minute")

    def __init__(
        self,
        key: str,
        per_minute: int,
        audit: Callable[[], Rows] | None,
        loop: asyncio.AbstractEventLoop,
    ):
        self.key = key
        self.per_minute = per_minute
        self.audit = audit  # made in the sending thread, off the event loop
        self.loop = loop
        self.future: asyncio.Future[tuple[float | None, int]] = loop.create_future()
        self.context = contextvars.copy_context()  # what its statement counts as (a request's)


def _settle(answers: Settled) -> None:
    """On the event loop: every answer of one statement, in one call."""
    for future, answer in answers:
        if future.done():
            continue
        if isinstance(answer, BaseException):
            future.set_exception(answer)
        else:
            future.set_result(answer)


class BudgetBatcher:
    """One thread that sends the budget statements of one process, each for every request waiting."""

    def __init__(self, spend: Spend, down: Callable[[], bool], limit: int = LIMIT):
        self._spend = spend
        self._down = down
        self.limit = limit
        self._lock = threading.Lock()
        # held while the thread has nothing to send; released (once) to wake it: a bare lock, the
        # cheapest wake-up a request on the event loop can give
        self._wake = threading.Lock()
        self._wake.acquire()
        self._waiting: list[_Ask] = []  # in order of arrival
        self._thread: threading.Thread | None = None
        self._idle = False  # the thread waits for a request (and must be woken)
        self._closed = False
        # statements sent, and the requests they carried: how well requests go together
        self.sent = 0
        self.carried = 0

    @property
    def queued(self) -> int:
        """Requests waiting for the next statement."""
        with self._lock:
            return len(self._waiting)

    @property
    def usable(self) -> bool:
        """Not closed, and the store not known to be down (then each caller takes its own path)."""
        return not self._closed and not self._down()

    async def take(
        self, key: str, per_minute: int, audit: Callable[[], Rows] | None = None
    ) -> tuple[float | None, int]:
        """Spend one request of `key`'s budget and read the revision, with whatever other requests
        are waiting: (None if allowed, else seconds until one is; the revision). `audit` makes the
        rows this request carries (called off the event loop)."""
        ask = _Ask(key, per_minute, audit, asyncio.get_running_loop())
        with self._lock:
            if self._closed:
                raise StoreUnavailable(DOWN)
            self._waiting.append(ask)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="parley-admissions", daemon=True
                )
                self._thread.start()
            elif self._idle:
                self._idle = False
                self._wake.release()
        # As a call in a worker thread: once sent, its answer is waited for (what it spent and
        # carried is known), whoever cancels the request.
        with anyio.CancelScope(shield=True):
            done, _ = await asyncio.wait((ask.future,), timeout=WAIT)
            if not done and self._withdraw(ask):
                raise StoreUnavailable(BUSY)
            answer = await ask.future
        return answer

    def _withdraw(self, ask: _Ask) -> bool:
        """Take back a request not yet sent; False when it already was."""
        with self._lock:
            for index, waiting in enumerate(self._waiting):
                if waiting is ask:
                    del self._waiting[index]
                    return True
        return False

    def _serve(self) -> None:
        while True:
            with self._lock:
                batch = self._waiting[: self.limit]
                del self._waiting[: self.limit]
                if not batch:
                    if self._closed:
                        return
                    self._idle = True
            if not batch:
                self._wake.acquire()  # until a request (or close) releases it
                continue
            self._answer(batch, self._send(batch))

    def _send(self, batch: list[_Ask]) -> tuple[list[float | None], int] | Exception:
        try:
            if self._down():
                raise StoreUnavailable(DOWN)
            rows = [row for ask in batch if ask.audit is not None for row in ask.audit()]
            self.sent += 1
            self.carried += len(batch)
            asks = [(ask.key, ask.per_minute) for ask in batch]
            return batch[0].context.run(self._spend, asks, rows)
        except Exception as exc:  # every request it carried is told, none is left waiting
            return exc

    def _answer(
        self, batch: list[_Ask], outcome: tuple[list[float | None], int] | Exception
    ) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, Settled] = {}
        for index, ask in enumerate(batch):
            answer: Answer
            if isinstance(outcome, StoreUnavailable):
                answer = StoreUnavailable(str(outcome))  # one each: raised in many requests
            elif isinstance(outcome, Exception):
                answer = outcome
            else:
                answer = (outcome[0][index], outcome[1])
            by_loop.setdefault(ask.loop, []).append((ask.future, answer))
        for loop, answers in by_loop.items():
            try:
                loop.call_soon_threadsafe(_settle, answers)
            except RuntimeError:  # that loop is closed: no one waits there any more
                pass

    def close(self) -> None:
        """Send nothing more; requests still waiting are told the store is unavailable."""
        with self._lock:
            self._closed = True
            left, self._waiting = self._waiting, []
            if self._idle:
                self._idle = False
                self._wake.release()
            thread = self._thread
        self._answer(left, StoreUnavailable(DOWN))
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
