"""Garbage collection for a process that holds many sessions.

Each open handshake-era session is a few hundred long-lived objects in the SDK, so 10,000 sessions
make a heap of millions, and one full collection of it stops every caller for seconds. CPython
starts a full collection once a quarter of the old generation's size has been *promoted* into it
since the last one, live or not. A server in steady state promotes all the time without growing:
the SDK keeps each session's last request until that session's next one, so every request's
leftovers age into the old generation and replace the previous request's. With 10,000 sessions
in turn that meant a two-second pause every ten seconds.

At start the keeper collects once and freezes what the start built (the manifest, the SDK, the
schemas), which lives as long as the process (measured in process: the longest pause over 6,000
first contacts fell from 183 to 77 ms). Then it moves what has survived into the permanent
generation once a second (`gc.freeze`, a constant-time list splice), so the collector's own passes
only ever look at recent objects. An object frozen this way is still freed the moment nothing
refers to it; only garbage held in reference cycles waits. The keeper runs one full collection
when the heap has really grown: when the interpreter's allocated memory blocks
(`sys.getallocatedblocks`, a walk over arenas, not objects) have doubled since their lowest count
after the last one, as Go's collector does by default (GOGC=100). Caches filling as callers first
arrive are growth too, and the memory cyclic garbage can hold is at most what is live.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import anyio

log = logging.getLogger("parley.heap")


class HeapKeeper:
    def __init__(self, growth: float = 1.0, at_least: int = 200_000):
        self.growth = growth
        self.at_least = at_least  # blocks: below this much growth a full pass is never worth it
        self.full_passes = 0
        self.baseline = 0
        self._settle()

    def _settle(self) -> int:
        """Collect everything, freeze what is left, and mark the memory blocks it holds; returns how
        many unreachable objects were freed."""
        gc.unfreeze()
        unreachable = gc.collect()
        gc.freeze()
        self.baseline = sys.getallocatedblocks()
        return unreachable

    def tick(self) -> None:
        gc.freeze()
        held = sys.getallocatedblocks()
        self.baseline = min(self.baseline, held)  # what died by reference counting lowers the mark
        if held - self.baseline < max(self.at_least, self.baseline * self.growth):
            return
        started = time.perf_counter()
        unreachable = self._settle()
        self.full_passes += 1
        log.info(
            "full collection: %d unreachable objects freed in %.0f ms; %d memory blocks held",
            unreachable,
            (time.perf_counter() - started) * 1000,
            self.baseline,
        )

    async def run(self, every: float = 1.0) -> None:
        while True:
            await anyio.sleep(every)
            self.tick()


App = TypeVar("App")


def kept(
    lifespan: Callable[[App], contextlib.AbstractAsyncContextManager[object]],
) -> Callable[[App], contextlib.AbstractAsyncContextManager[None]]:
    """An app's lifespan with a heap keeper running beside it."""

    @contextlib.asynccontextmanager
    async def with_keeper(app: App) -> AsyncIterator[None]:
        async with lifespan(app), anyio.create_task_group() as group:
            group.start_soon(HeapKeeper().run)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    return with_keeper
