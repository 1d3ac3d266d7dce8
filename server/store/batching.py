"""Admissions sent together. On PostgreSQL a request spends its budget and reads the revision it is
resolved at in one statement (`PostgresDatabase.take_budgets_reading_revision`).
Sent one by one from worker threads, under load each request paid a hand-off to a thread, a
statement of its own (on the client and on the server) and a wake-up of the event loop. Here the
requests that arrive while a statement is in flight wait for it to come back and then go together,
as one statement. Each event loop sends its own, on a connection of its own, with no thread between
the request and the statement: a request on the loop queues itself, the loop sends, and the answers
are settled on the loop that reads them. A request that finds nothing in flight goes at once (on the
loop's next turn): without load nothing waits longer than before.

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
from collections.abc import Awaitable, Callable, Sequence

import anyio

from server.store.database import StoreUnavailable

LIMIT = 256  # requests one statement carries at most
WAIT = 1.5  # seconds a request waits for its turn, as a statement waits for a pooled connection
BUSY = "every connection to the store is busy; nothing changed, retry shortly"
DOWN = "the store is unavailable; nothing changed, retry in a second"

Answer = tuple[list[float | None], int]
# (key, per minute) of each request, in order → each request's wait (None: allowed) and the revision;
# sent on the running event loop's own connection
Spend = Callable[[Sequence[tuple[str, int]]], Awaitable[Answer]]


class _Ask:
    """One request's part of a statement, and where its answer goes."""

    __slots__ = ("arrived", "context", "future", "key", "per_minute")

    def __init__(self, key: str, per_minute: int, loop: asyncio.AbstractEventLoop):
        self.key = key
        self.per_minute = per_minute
        self.future: asyncio.Future[tuple[float | None, int]] = loop.create_future()
        self.arrived = loop.time()
        self.context = contextvars.copy_context()  # what its statement counts as (a request's)


def _fail(asks: Sequence[_Ask], exc: BaseException) -> None:
    """On the asks' event loop: each told, one exception each (raised in many requests)."""
    for ask in asks:
        if not ask.future.done():
            one = StoreUnavailable(str(exc)) if isinstance(exc, StoreUnavailable) else exc
            ask.future.set_exception(one)


class _Line:
    """One event loop's requests: those waiting in order of arrival, and the statement in flight."""

    __slots__ = ("loop", "sending", "timer", "waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.waiting: list[_Ask] = []
        self.sending: asyncio.Task[None] | None = None
        # armed while requests wait behind a statement: answers "busy" those still waiting after WAIT
        self.timer: asyncio.TimerHandle | None = None

    def expire(self) -> None:
        self.timer = None
        if not self.waiting:
            return
        now = self.loop.time()
        late = 0
        while late < len(self.waiting) and self.waiting[late].arrived + WAIT <= now:
            late += 1
        if late:
            expired, self.waiting[:late] = self.waiting[:late], []
            _fail(expired, StoreUnavailable(BUSY))
        if self.waiting:
            self.timer = self.loop.call_at(self.waiting[0].arrived + WAIT, self.expire)


class BudgetBatcher:
    """The budget statements of one process, each event loop sending its own for every request
    waiting on it."""

    def __init__(self, spend: Spend, down: Callable[[], bool], limit: int = LIMIT):
        self._spend = spend
        self._down = down
        self.limit = limit
        self._lines: dict[asyncio.AbstractEventLoop, _Line] = {}
        self._closed = False
        # statements sent, and the requests they carried: how well requests go together
        self.sent = 0
        self.carried = 0

    @property
    def queued(self) -> int:
        """Requests waiting for the next statement (on every loop)."""
        return sum(len(line.waiting) for line in list(self._lines.values()))

    @property
    def usable(self) -> bool:
        """Not closed, and the store not known to be down (then each caller takes its own path)."""
        return not self._closed and not self._down()

    async def take(self, key: str, per_minute: int) -> tuple[float | None, int]:
        """Spend one request of `key`'s budget and read the revision, with whatever other requests
        are waiting: (None if allowed, else seconds until one is; the revision)."""
        if self._closed:
            raise StoreUnavailable(DOWN)
        loop = asyncio.get_running_loop()
        line = self._lines.get(loop)
        if line is None:
            line = self._lines[loop] = _Line(loop)
        ask = _Ask(key, per_minute, loop)
        line.waiting.append(ask)
        if line.sending is None:  # nothing in flight: its statement goes on the next turn
            line.sending = loop.create_task(self._send(line))
        elif line.timer is None:
            line.timer = loop.call_at(ask.arrived + WAIT, line.expire)
        try:
            return await ask.future
        except asyncio.CancelledError:
            # Cancelled before its turn: never sent. Once sent, as a call in a worker thread, its
            # statement is waited for (what it spent is known) before the cancellation
            # goes on. (A shield on every request costs more than the request's share of a statement.)
            sending = line.sending
            if not self._withdraw(line, ask) and sending is not None:
                with anyio.CancelScope(shield=True):
                    await asyncio.wait((sending,))
            raise

    @staticmethod
    def _withdraw(line: _Line, ask: _Ask) -> bool:
        """Take back a request not yet sent; False when it already was."""
        for index, waiting in enumerate(line.waiting):
            if waiting is ask:
                del line.waiting[index]
                return True
        return False

    async def _send(self, line: _Line) -> None:
        """One statement for what waits on this loop; then the next statement's task, for what came
        while this one was in flight (each task runs in its first request's context: the statement
        counts as a request's, as a worker thread's would)."""
        batch, line.waiting[: self.limit] = line.waiting[: self.limit], []
        try:
            if self._down():
                raise StoreUnavailable(DOWN)
            self.sent += 1
            self.carried += len(batch)
            waits, current = await self._spend([(ask.key, ask.per_minute) for ask in batch])
        except Exception as exc:  # every request it carried is told, none is left waiting
            _fail(batch, exc)
        except BaseException:  # cancelled (the loop is closing): nothing more is sent from it
            line.sending = None
            _fail([*batch, *line.waiting], StoreUnavailable(DOWN))
            line.waiting.clear()
            raise
        else:
            for ask, wait in zip(batch, waits, strict=True):
                if not ask.future.done():
                    ask.future.set_result((wait, current))
        if line.waiting and not self._closed:
            line.sending = line.loop.create_task(self._send(line), context=line.waiting[0].context)
        else:
            line.sending = None

    def close(self) -> None:
        """Send nothing more; requests still waiting are told the store is unavailable (on their own
        loop). A statement in flight finishes and answers its requests."""
        self._closed = True
        for line in list(self._lines.values()):
            left, line.waiting = line.waiting, []
            if left:
                try:
                    line.loop.call_soon_threadsafe(_fail, left, StoreUnavailable(DOWN))
                except RuntimeError:  # that loop is closed: no one waits there any more
                    pass
