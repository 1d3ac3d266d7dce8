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
mandate's Terms and the Notes that mandate reveals, as JSON.

Why not multiprocessing: its pipes unpickle what the other side sends, and here the other side is
the untrusted one. Replies are one JSON line each, parsed with the strict `Selection` model (note
ids, or an escalation, or a refusal: no text); the trusted side then composes the answer from the
notes it handed over (`grounding.compose`), so a worker has no way to put words in front of an asker.

Each call has a deadline (the model's timeout + a margin). A worker that dies (killed, segfault,
exception) or misses its deadline is killed and replaced, and that call returns an escalating
Selection instead of raising: the question reaches the member's queue. Calls run concurrently up to
`size`; more wait their turn in a queue that holds no thread.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Mapping, Sequence
import json
import logging
import os
import queue
import select
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from server.answering import sandbox
from server.answering.contract import Note, ScopedRequest, Selection, Terms

log = logging.getLogger("parley.answering.pool")

MAX_REPLY = 1 << 20  # a worker that talks more than this is broken
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from server.answering.pool import worker_main; worker_main()")


@dataclass(frozen=True)
class AnswererConfig:
    """What a worker is told at start: deterministic when `url` is None, else an OpenAI-compatible model."""

    url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)  # the value, handed over the worker's stdin
    timeout: float = 20.0

    @classmethod
    def from_settings(cls, url: str | None, model: str | None, key_env: str | None,
                      environ: dict[str, str] | None = None, timeout: float = 20.0) -> AnswererConfig:
        """From `Settings.answerer_url/answerer_model/answerer_key_env`: the key is read here, in the
        server, from the variable the settings name; the worker never sees the server's environment."""
        source: Mapping[str, str] = os.environ if environ is None else environ
        api_key = source.get(key_env) if key_env else None
        return cls(url=url or None, model=model, api_key=api_key or None, timeout=timeout)

    def ports(self) -> tuple[int, ...]:
        """The TCP ports a worker may connect to: the model endpoint's, or none."""
        if not self.url:
            return ()
        parts = urlsplit(self.url)
        return (parts.port or (443 if parts.scheme == "https" else 80),)


ESCALATE = Selection(escalate="outside_mandate")  # what a call returns when its worker failed


class WorkerFailed(Exception):
    """The worker died, missed its deadline or said something that is not an answer."""


class _Worker:
    """One worker process and the pipes to it. Used by one thread at a time (the pool's slot)."""

    def __init__(self, config: AnswererConfig, allow_probe: bool):
        root = str(Path(__file__).resolve().parents[2])  # the directory holding the `server` package
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=sandbox.scrubbed_env(os.environ), close_fds=True, cwd="/", start_new_session=True,
        )
        self.stderr: collections.deque[str] = collections.deque(maxlen=40)
        threading.Thread(target=self._drain, name=f"answerer-{self.proc.pid}-stderr", daemon=True).start()
        self.buffer = b""
        self.report: dict[str, Any] | None = None
        self._send({"url": config.url, "model": config.model, "api_key": config.api_key,
                    "timeout": config.timeout, "probe": allow_probe})

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _drain(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def _send(self, message: dict) -> None:
        try:
            self.proc.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerFailed(f"worker {self.pid} is gone ({exc})") from exc

    def _receive(self, deadline: float) -> dict:
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerFailed(f"worker {self.pid} missed its deadline")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise WorkerFailed(f"worker {self.pid} exited ({self.proc.poll()})")
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY:
                raise WorkerFailed(f"worker {self.pid} sent more than {MAX_REPLY} bytes")
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
            if not isinstance(message.get("ready"), dict):
                raise WorkerFailed(f"worker {self.pid} did not start: {message.get('error', message)}")
            self.report = message["ready"]
        return self.report

    def call(self, message: dict, deadline: float) -> dict:
        self._send(message)
        reply = self._receive(deadline)
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

    def __init__(self, config: AnswererConfig | None = None, size: int = 2, margin: float = 5.0,
                 startup_timeout: float = 30.0, allow_probe: bool = False):
        self.config = config or AnswererConfig()
        self.size = size
        self.margin = margin
        self.startup_timeout = startup_timeout
        self.allow_probe = allow_probe  # tests and doctor only: lets a worker report what it can open
        self._slots: queue.Queue[list[_Worker | None]] = queue.Queue()
        self._all: list[list[_Worker | None]] = [[None] for _ in range(size)]
        for slot in self._all:
            self._slots.put(slot)
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="answerer")
        self._closed = False
        self._warned = False
        self._report: dict[str, Any] | None = None

    # --- the server side ---------------------------------------------------------------------

    async def answer(self, request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
        """Answer in a worker; the event loop only awaits. Never raises for a worker's failure."""
        if self._closed:
            return ESCALATE
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.answer_sync, request, terms, notes)

    def answer_sync(self, request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
        """The same from a thread (or a CLI); blocks the caller, not the workers. Has the `Answerer` shape."""
        message = {"op": "answer", "request": request.model_dump(), "terms": terms.model_dump(),
                   "notes": [note.model_dump() for note in notes]}
        try:
            reply = self._run(message, self.config.timeout + self.margin)
            return Selection.model_validate(reply.get("selection"))
        except (WorkerFailed, ValidationError) as exc:
            log.warning("answering worker failed or replied out of contract; the question escalates: %s",
                        type(exc).__name__)
            return ESCALATE

    def probe(self, paths: Sequence[str] = (), listdirs: Sequence[str] = (), connect: Sequence[int] = ()) -> dict[str, Any]:
        """From inside a worker: what opening `paths`, listing `listdirs` and connecting to loopback
        `connect` ports does (errno names). Only with allow_probe=True (tests, doctor)."""
        return self._run({"op": "probe", "paths": list(paths), "listdirs": list(listdirs),
                          "connect": list(connect)}, self.margin)

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

    def pids(self) -> list[int]:
        return [slot[0].pid for slot in self._all if slot[0] is not None]

    def close(self) -> None:
        """Stop every worker; calls still waiting get escalated answers. Idempotent."""
        self._closed = True
        self._executor.shutdown(wait=False)  # queued calls still run, find the pool closed and escalate
        for slot in self._all:
            worker, slot[0] = slot[0], None
            if worker is not None:
                worker.stop()

    # --- one call in one slot ----------------------------------------------------------------

    def _run(self, message: dict, budget: float) -> dict:
        if self._closed:
            raise WorkerFailed("the pool is closed")
        slot = self._slots.get()
        try:
            worker = slot[0]
            if worker is None or worker.proc.poll() is not None:
                if worker is not None:
                    worker.kill()
                worker = slot[0] = _Worker(self.config, self.allow_probe)
            try:
                self._started(worker.ready(time.monotonic() + self.startup_timeout))
                return worker.call(message, time.monotonic() + budget)
            except WorkerFailed:
                worker.kill()
                tail = " | ".join(list(worker.stderr)[-5:])
                if tail:
                    log.warning("answering worker %s said: %s", worker.pid, tail)
                slot[0] = None if self._closed else _Worker(self.config, self.allow_probe)  # its replacement
                raise
        finally:
            self._slots.put(slot)

    def _started(self, report: dict[str, Any]) -> None:
        self._report = report
        if not self._warned and not report.get("landlock") and report.get("uid") != sandbox.NOBODY:
            self._warned = True
            log.warning("answering workers run in their own process with a scrubbed environment, but this "
                        "machine offers no Landlock and the server is not root: a worker can read what the "
                        "server's user can read")


# --- the worker side ---------------------------------------------------------------------------

def _answerer(config: dict):
    """Import and build the answerer before confinement: afterwards nothing more may be readable."""
    import encodings.idna  # noqa: F401 - host names, even "127.0.0.1", go through it lazily
    import errno  # noqa: F401
    import socket  # noqa: F401

    from server.answering import deterministic

    if not config.get("url"):
        return deterministic.answer
    import httpx2

    from server.answering.model import ModelAnswerer

    timeout = float(config.get("timeout") or 20.0)
    client = httpx2.Client(timeout=timeout)  # certificates and proxies are read now
    model = ModelAnswerer(config["url"], config.get("model") or "", config.get("api_key"), timeout, client=client)
    client.build_request("POST", model.url, json={})  # warm the lazily imported parts of a request
    return model


def _probe(message: dict) -> dict:
    import errno
    import socket

    def outcome(action) -> str:
        try:
            action()
            return "ok"
        except OSError as exc:
            return errno.errorcode.get(exc.errno or 0, type(exc).__name__)

    def read(path: str) -> None:
        with open(path, "rb") as handle:
            handle.read(1)

    def connect(port: int) -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass

    fds = [fd for fd in range(256) if _is_open(fd)]
    return {"open": {p: outcome(lambda p=p: read(p)) for p in message.get("paths", [])},
            "listdir": {p: outcome(lambda p=p: os.listdir(p)) for p in message.get("listdirs", [])},
            "connect": {str(port): outcome(lambda port=port: connect(port)) for port in message.get("connect", [])},
            "env": sorted(os.environ), "uid": os.getuid(), "fds": fds}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def worker_main() -> None:
    """The worker: read its configuration, confine itself, then answer one JSON line at a time."""
    out = os.fdopen(os.dup(1), "wb", buffering=0)  # the reply channel; stray prints go to stderr
    os.dup2(2, 1)
    sandbox.close_inherited_fds(keep=[out.fileno()])

    def send(message: dict) -> None:
        out.write(json.dumps(message).encode() + b"\n")

    stdin = sys.stdin.buffer
    try:
        config = json.loads(stdin.readline())
        answerer = _answerer(config)
        report = sandbox.confine(connect_ports=AnswererConfig(url=config.get("url")).ports())
    except Exception as exc:  # fail closed: a worker that cannot confine itself answers nothing
        send({"error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(2) from None
    send({"ready": report})
    for line in stdin:
        try:
            message = json.loads(line)
            if message.get("op") == "probe" and config.get("probe"):
                send(_probe(message))
                continue
            if message.get("op") != "answer":
                send({"error": "unknown request"})
                continue
            request = ScopedRequest.model_validate(message["request"])
            terms = Terms.model_validate(message["terms"])
            notes = [Note.model_validate(n) for n in message["notes"]]
            send({"selection": answerer(request, terms, notes).model_dump(mode="json")})
        except Exception as exc:  # one bad request does not end the worker; the caller escalates
            send({"error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":  # pragma: no cover
    worker_main()
