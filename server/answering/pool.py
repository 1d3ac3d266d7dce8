"""Answering agents in a small pool of worker processes, so a slow model stalls no other caller.

    pool = AnswererPool(AnswererConfig.from_settings(url, model, key_env), size=2)
    selection = await pool.answer(request, terms, notes)   # never blocks the event loop, never raises
    pool.close()

A worker is a fresh interpreter (`python -I -B`, exec'd like multiprocessing's "spawn", so nothing
of the server's open files, sockets or memory is inherited), with a scrubbed environment and every
descriptor above stderr closed. It is sent its configuration (deterministic, or the model's URL,
name, timeout and the API key's *value*) on its stdin, imports what it needs, then confines itself
(see `sandbox.py`: no_new_privs, uid 65534 when root, Landlock) before it reads any request. It
holds no store, no keys, no tokens: each request carries only the ScopedRequest, the verified
mandate's Terms and the Notes that mandate reveals, as a line of JSON (`calls.py`).

Why not multiprocessing: its pipes unpickle what the other side sends, and here the other side is
the untrusted one. Replies are one JSON line each, parsed with the strict `Selection` model (note
ids, or an escalation, or a refusal: no text); the trusted side then composes the answer from the
notes it handed over (`grounding.compose`), so a worker has no way to put words in front of an asker.

Each call has a deadline (the model's timeout + a margin). A worker that dies (killed, segfault,
exception) or misses its deadline is killed and replaced, and that call returns an escalating
Selection instead of raising: the question reaches the member's queue. Calls run concurrently up to
`size`; more wait their turn in a queue that holds no thread. A call that finds a started worker
idle is written and awaited by the event loop itself (its request fits in the pipe, so the write
cannot block), sparing it two thread hops; starting, replacing and waiting go through the executor.
One worker process and its pipes are `worker_process.py`; the worker's own side is `worker.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pydantic import ValidationError

from server.answering import sandbox
from server.answering.calls import answer_line, probe_line
from server.answering.config import AnswererConfig
from server.answering.contract import Note, ScopedRequest, Selection, Terms
from server.answering.readiness import verdict
from server.answering.worker_process import PIPE_ROOM, Message, WorkerFailed, WorkerProcess

log = logging.getLogger("parley.answering.pool")

ESCALATE = Selection(escalate="outside_mandate")  # what a call returns when its worker failed


class AnswererPool:
    """`size` worker processes answering concurrently; see the module docstring."""

    def __init__(
        self,
        config: AnswererConfig | None = None,
        size: int = 2,
        margin: float = 5.0,
        startup_timeout: float = 30.0,
        allow_probe: bool = False,
    ):
        self.config = config or AnswererConfig()
        self.size = size
        self.margin = margin
        self.startup_timeout = startup_timeout
        self.allow_probe = (
            allow_probe  # tests and doctor only: lets a worker report what it can open
        )
        # the slots free now, warmest first
        self._slots: queue.LifoQueue[list[WorkerProcess | None]] = queue.LifoQueue()
        self._all: list[list[WorkerProcess | None]] = [[None] for _ in range(size)]
        for slot in self._all:
            self._slots.put(slot)
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="answerer")
        self._closed = False
        self._warned = False
        self._report: Message | None = None

    # --- the server side ---------------------------------------------------------------------

    async def answer(self, request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
        """Answer in a worker; the event loop only awaits. Never raises for a worker's failure.

        When a started worker is idle and the request fits in its pipe, the loop writes it and awaits
        the reply itself (no thread hop each way); otherwise the call waits its turn in the executor."""
        if self._closed:
            return ESCALATE
        line = answer_line(request, terms, notes)
        slot = self._idle_slot() if len(line) <= PIPE_ROOM else None
        if slot is not None:
            return await self._answer_on_loop(slot, line)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._answer_line, line)

    def answer_sync(self, request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
        """The same from a thread (or a CLI); blocks the caller, not the workers. Has the `Answerer` shape."""
        return self._answer_line(answer_line(request, terms, notes))

    def _answer_line(self, line: bytes) -> Selection:
        try:
            return self._selection(self._run(line, self.config.timeout + self.margin))
        except WorkerFailed as exc:
            return self._escalated(exc)

    @staticmethod
    def _selection(reply: Message) -> Selection:
        try:
            return Selection.model_validate(reply.get("selection"))
        except ValidationError as exc:
            return AnswererPool._escalated(exc)

    @staticmethod
    def _escalated(exc: Exception) -> Selection:
        log.warning(
            "answering worker failed or replied out of contract; the question escalates: %s",
            type(exc).__name__,
        )
        return ESCALATE

    def _idle_slot(self) -> list[WorkerProcess | None] | None:
        """A free slot whose worker has started and is alive, taken; None if there is none right now
        (starting or replacing a worker blocks: the executor's path does that)."""
        passed: list[list[WorkerProcess | None]] = []
        found = None
        while found is None and len(passed) < self.size:
            try:
                slot = self._slots.get_nowait()
            except queue.Empty:
                break
            worker = slot[0]
            if worker is not None and worker.report is not None and worker.proc.poll() is None:
                found = slot
            else:
                passed.append(slot)
        for slot in passed:
            self._slots.put(slot)
        return found

    async def _answer_on_loop(self, slot: list[WorkerProcess | None], line: bytes) -> Selection:
        worker = slot[0]
        assert worker is not None
        try:
            reply = await worker.call_async(line, self.config.timeout + self.margin)
        except (WorkerFailed, TimeoutError) as exc:
            self._retire(slot, worker)
            return self._escalated(exc)
        except BaseException:  # cancelled mid-call: its reply would answer the next question
            self._retire(slot, worker)
            raise
        else:
            self._slots.put(slot)
        return self._selection(reply)

    def _retire(self, slot: list[WorkerProcess | None], worker: WorkerProcess) -> None:
        """Kill a worker that failed or was left mid-call; the next call in its slot starts another."""
        worker.kill()
        tail = " | ".join(list(worker.stderr)[-5:])
        if tail:
            log.warning("answering worker %s said: %s", worker.pid, tail)
        slot[0] = None
        self._slots.put(slot)

    def probe(
        self, paths: Sequence[str] = (), listdirs: Sequence[str] = (), connect: Sequence[int] = ()
    ) -> Message:
        """From inside a worker: what opening `paths`, listing `listdirs` and connecting to loopback
        `connect` ports does (errno names). Only with allow_probe=True (tests, doctor)."""
        return self._run(probe_line(paths, listdirs, connect), self.margin)

    def isolation(self) -> Message | None:
        """What the workers reported they applied (the last one to start), None before any started."""
        return self._report

    def describe(self) -> str:
        return sandbox.describe(self._report)

    def start(self) -> None:
        """Start every worker now instead of on first use (they finish starting in the background)."""
        for slot in self._all:
            if slot[0] is None and not self._closed:
                slot[0] = WorkerProcess(self.config, self.allow_probe)

    def readiness(self) -> str | None:
        """None when this pool can answer, else why not (`readiness.verdict`). Never waits: the
        workers of slots free right now have their ready lines read if they came. One that failed
        to start is left to the next call to replace (a broken configuration would otherwise start
        a worker at every probe)."""
        taken: list[list[WorkerProcess | None]] = []
        with contextlib.suppress(queue.Empty):
            while len(taken) < self.size:
                taken.append(self._slots.get_nowait())
        try:
            for slot in taken:
                worker = slot[0]
                if worker is not None and not worker.failed and worker.started():
                    self._started(worker.report or {})
            return verdict([slot[0] for slot in self._all])
        finally:
            for slot in reversed(taken):  # back in the order they were taken: warmest first
                self._slots.put(slot)

    def pids(self) -> list[int]:
        return [slot[0].pid for slot in self._all if slot[0] is not None]

    def close(self) -> None:
        """Stop every worker; calls still waiting get escalated answers. Idempotent. One still
        starting is killed at once: it reads its stdin's end only once ready (seconds)."""
        self._closed = True
        self._executor.shutdown(
            wait=False
        )  # queued calls still run, find the pool closed and escalate
        for slot in self._all:
            worker, slot[0] = slot[0], None
            if worker is not None and worker.report is None:
                worker.kill()
            elif worker is not None:
                worker.stop()

    # --- one call in one slot ----------------------------------------------------------------

    def _run(self, line: bytes, budget: float) -> Message:
        if self._closed:
            raise WorkerFailed("the pool is closed")
        slot = self._slots.get()
        try:
            worker = slot[0]
            if worker is None or worker.proc.poll() is not None:
                retry = worker is not None and worker.report is None
                if worker is not None:
                    worker.kill()
                worker = slot[0] = WorkerProcess(self.config, self.allow_probe, retry)
            try:
                self._started(worker.ready(time.monotonic() + self.startup_timeout))
                return worker.call(line, time.monotonic() + budget)
            except WorkerFailed:
                worker.kill()
                tail = " | ".join(list(worker.stderr)[-5:])
                if tail:
                    log.warning("answering worker %s said: %s", worker.pid, tail)
                retry = worker.report is None  # it failed to start: its replacement is a retry
                slot[0] = (
                    None if self._closed else WorkerProcess(self.config, self.allow_probe, retry)
                )  # its replacement
                raise
        finally:
            self._slots.put(slot)

    def _started(self, report: Message) -> None:
        self._report = report
        if not self._warned and not report.get("landlock") and report.get("uid") != sandbox.NOBODY:
            self._warned = True
            log.warning(
                "answering workers run in their own process with a scrubbed environment, but this "
                "machine offers no Landlock and the server is not root: a worker can read what the "
                "server's user can read"
            )
