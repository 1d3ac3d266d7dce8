"""The server's end of one answering worker process: starting it (a fresh, scrubbed interpreter),
writing a line to it and reading its reply within a deadline, from a thread or from the event loop,
and killing it. Kept apart from the pool (`pool`), which decides which slot a call runs in, when a
worker is replaced and what a failure answers: this module knows pipes and processes, not callers.
The worker's own side is `worker.py`.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from server.answering import sandbox
from server.answering.config import AnswererConfig
from server.answering.worker import WorkerConfig

log = logging.getLogger("parley.answering.pool")  # the pool's log: operators read one name

Message = dict[str, object]  # one JSON object to or from a worker; its parts are checked when read
MAX_REPLY = 1 << 20  # a worker that talks more than this is broken
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from server.answering.worker import worker_main; worker_main()"
)
PIPE_ROOM = 65536  # what a pipe holds on Linux: a request this size to an idle worker never blocks its write


class WorkerFailed(Exception):
    """The worker died, missed its deadline or said something that is not an answer."""


class WorkerProcess:
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
        self.report: Message | None = None
        first: WorkerConfig = {
            "url": config.url,
            "model": config.model,
            "api_key": config.api_key,
            "timeout": config.timeout,
            "probe": allow_probe,
        }
        self._write(json.dumps(first).encode() + b"\n")

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

    def ready(self, deadline: float) -> Message:
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
