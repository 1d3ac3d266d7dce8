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
The worker's own side is `worker.py`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.answering import sandbox
from server.answering.calls import answer_line, probe_line
from server.answering.config import AnswererConfig
from server.answering.contract import Note, ScopedRequest, Selection, Terms
from server.answering.readiness import verdict

log = logging.getLogger("parley.answering.pool")

Message = dict[str, object]  # one JSON object to or from a worker; its parts are checked when read
MAX_REPLY = 1 << 20  # a worker that talks more than this is broken
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from server.answering.worker import worker_main; worker_main()"
)
PIPE_ROOM = 65536  # what a pipe holds on Linux: a request this size to an idle worker never blocks its write


ESCALATE = Selection(escalate="outside_mandate")  # what a call returns when its worker failed


class WorkerFailed(Exception):
    """The worker died, missed its deadline or said something that is not an answer."""


class _Worker:
    """One worker process and the pipes to it. Used by one thread at a time (the pool's slot)."""

    def __init__(self, config: AnswererConfig, allow_probe: bool, retry: bool = False):
        self.retry = retry  # started after its slot's last worker failed to start
        self.failed = False  # seen to fail to start (`AnswererPool.readiness`), not yet replaced
        root = str(
            Path(__file__).resolve().parents[2]
        )  # the directory holding the `server` package
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, root],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=sandbox.scrubbed_env(os.environ),
            close_fds=True,
            cwd="/",
            start_new_session=True,
        )
        self.stderr: collections.deque[str] = collections.deque(maxlen=40)
        threading.Thread(
            target=self._drain, name=f"answerer-{self.proc.pid}-stderr", daemon=True
        ).start()
        self.buffer = b""
        os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]  # see _took
        self.report: dict[str, Any] | None = None
        self._write(
            json.dumps(
                {
                    "url": config.url,
                    "model": config.model,
                    "api_key": config.api_key,
                    "timeout": config.timeout,
                    "probe": allow_probe,
                }
            ).encode()
            + b"\n"
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _drain(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def _write(self, line: bytes) -> None:
        try:
            self.proc.stdin.write(line)  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerFailed(f"worker {self.pid} is gone ({exc})") from exc

    def _receive(self, deadline: float) -> Message:
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        self._took(fd)
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerFailed(f"worker {self.pid} missed its deadline")
            select.select([fd], [], [], left)
            self._took(fd)
        return self._line()

    def _took(self, fd: int) -> None:
        """What the worker wrote so far, if anything, taken without a wait: a worker woken on the
        caller's CPU has often answered by the time the caller reads."""
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        self._take(chunk)  # its end of file fails the call

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            raise WorkerFailed(f"worker {self.pid} exited ({self.proc.poll()})")
        self.buffer += chunk
        if len(self.buffer) > MAX_REPLY:
            raise WorkerFailed(f"worker {self.pid} sent more than {MAX_REPLY} bytes")

    async def _receive_async(self, budget: float) -> Message:
        """The same as `_receive`, awaited on the event loop within `budget` seconds. A reply that is
        there already (a worker woken on this CPU answers before the write returns) is taken with no
        wait, no reader and no timer; otherwise the wait is bounded by `asyncio.timeout`."""
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        self._took(fd)
        if b"\n" not in self.buffer:
            async with asyncio.timeout(budget):  # no task of its own, unlike wait_for
                await self._readable_line(fd)
        return self._line()

    async def _readable_line(self, fd: int) -> None:
        """Wait, on the loop, until the buffer holds a whole line."""
        loop = asyncio.get_running_loop()
        while b"\n" not in self.buffer:
            readable: asyncio.Future[None] = loop.create_future()

            def wake(readable: asyncio.Future[None] = readable) -> None:
                if not readable.done():
                    readable.set_result(None)

            loop.add_reader(fd, wake)
            try:
                await readable
            finally:
                loop.remove_reader(fd)
            self._took(fd)

    def _line(self) -> Message:
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError as exc:
            raise WorkerFailed(f"worker {self.pid} sent something that is not JSON") from exc
        if not isinstance(message, dict):
            raise WorkerFailed(f"worker {self.pid} sent something that is not an object")
        return message

    def ready(self, deadline: float) -> dict[str, Any]:
        if self.report is None:
            message = self._receive(deadline)
            report = message.get("ready")
            if not isinstance(report, dict):
                raise WorkerFailed(
                    f"worker {self.pid} did not start: {message.get('error', message)}"
                )
            self.report = report
        return self.report

    def started(self) -> bool:
        """Whether its ready line came, read without waiting (by its slot's holder); one that failed
        to start is killed and marked `failed`, its stderr's tail logged."""
        try:
            if self.report is None and b"\n" not in self.buffer:
                self._took(self.proc.stdout.fileno())  # type: ignore[union-attr]
            return self.report is not None or (b"\n" in self.buffer and bool(self.ready(0.0)))
        except WorkerFailed as exc:
            self.failed = True
            self.kill()
            tail = " | ".join(list(self.stderr)[-5:])
            log.warning("answering worker %s failed to start (%s): %s", self.pid, exc, tail)
            return False

    def call(self, line: bytes, deadline: float) -> Message:
        self._write(line)
        return self._checked(self._receive(deadline))

    async def call_async(self, line: bytes, budget: float) -> Message:
        """One call from the event loop, to an idle worker and a request of at most PIPE_ROOM bytes, so
        the write cannot block; a reply later than `budget` seconds raises TimeoutError, and the caller
        kills the worker if the call ends early."""
        self._write(line)
        return self._checked(await self._receive_async(budget))

    def _checked(self, reply: Message) -> Message:
        if "error" in reply:
            raise WorkerFailed(f"worker {self.pid}: {reply['error']}")
        return reply

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process SIGKILL cannot end
            log.error("answering worker %s did not die", self.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def stop(self) -> None:
        """Ask politely (EOF on stdin), then kill."""
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=1)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


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
        self._slots: queue.LifoQueue[list[_Worker | None]] = queue.LifoQueue()  # warmest first
        self._all: list[list[_Worker | None]] = [[None] for _ in range(size)]
        for slot in self._all:
            self._slots.put(slot)
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="answerer")
        self._closed = False
        self._warned = False
        self._report: dict[str, Any] | None = None

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

    def _idle_slot(self) -> list[_Worker | None] | None:
        """A free slot whose worker has started and is alive, taken; None if there is none right now
        (starting or replacing a worker blocks: the executor's path does that)."""
        passed: list[list[_Worker | None]] = []
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

    async def _answer_on_loop(self, slot: list[_Worker | None], line: bytes) -> Selection:
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

    def _retire(self, slot: list[_Worker | None], worker: _Worker) -> None:
        """Kill a worker that failed or was left mid-call; the next call in its slot starts another."""
        worker.kill()
        tail = " | ".join(list(worker.stderr)[-5:])
        if tail:
            log.warning("answering worker %s said: %s", worker.pid, tail)
        slot[0] = None
        self._slots.put(slot)

    def probe(
        self, paths: Sequence[str] = (), listdirs: Sequence[str] = (), connect: Sequence[int] = ()
    ) -> dict[str, Any]:
        """From inside a worker: what opening `paths`, listing `listdirs` and connecting to loopback
        `connect` ports does (errno names). Only with allow_probe=True (tests, doctor)."""
        return self._run(probe_line(paths, listdirs, connect), self.margin)

    def isolation(self) -> dict[str, Any] | None:
        """What the workers reported they applied (the last one to start), None before any started."""
        return self._report

    def describe(self) -> str:
        return sandbox.describe(self._report)

    def start(self) -> None:
        """Start every worker now instead of on first use (they finish starting in the background)."""
        for slot in self._all:
            if slot[0] is None and not self._closed:
                slot[0] = _Worker(self.config, self.allow_probe)

    def readiness(self) -> str | None:
        """None when this pool can answer, else why not (`readiness.verdict`). Never waits: the
        workers of slots free right now have their ready lines read if they came. One that failed
        to start is left to the next call to replace (a broken configuration would otherwise start
        a worker at every probe)."""
        taken: list[list[_Worker | None]] = []
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
                worker = slot[0] = _Worker(self.config, self.allow_probe, retry)
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
                    None if self._closed else _Worker(self.config, self.allow_probe, retry)
                )  # its replacement
                raise
        finally:
            self._slots.put(slot)

    def _started(self, report: dict[str, Any]) -> None:
        self._report = report
        if not self._warned and not report.get("landlock") and report.get("uid") != sandbox.NOBODY:
            self._warned = True
            log.warning(
                "answering workers run in their own process with a scrubbed environment, but this "
                "machine offers no Landlock and the server is not root: a worker can read what the "
                "server's user can read"
            )
