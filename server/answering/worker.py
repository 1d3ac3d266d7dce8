"""The answering worker's side of the pool's pipes: a fresh interpreter that reads its configuration,
builds its answerer, confines itself (`sandbox.confine`), then answers one JSON line at a time
(`calls.CALLS`: an answer, or a probe when its pool allows probes, each checked whole by pydantic).
It never sees the store, keys or tokens; see `worker_process.py` and `pool.py` for the server's side."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from functools import partial
from typing import TypedDict

from server.answering import sandbox
from server.answering.calls import CALLS, ProbeCall, selection_line
from server.answering.config import AnswererConfig
from server.answering.contract import Note, ScopedRequest, Selection, Terms

Answerer = Callable[[ScopedRequest, Terms, list[Note]], Selection]


class WorkerConfig(TypedDict, total=False):
    """The first line a worker reads (`worker_process.WorkerProcess` writes it from an `AnswererConfig`)."""

    url: str | None
    model: str | None
    api_key: str | None
    timeout: float
    probe: bool


class ProbeReport(TypedDict):
    open: dict[str, str]
    listdir: dict[str, str]
    connect: dict[str, str]
    env: list[str]
    uid: int
    fds: list[int]


def _answerer(config: WorkerConfig) -> Answerer:
    """Import and build the answerer before confinement: afterwards nothing more may be readable."""
    import encodings.idna  # noqa: F401 - host names, even "127.0.0.1", go through it lazily
    import errno  # noqa: F401
    import socket  # noqa: F401

    from server.answering import deterministic, meaning

    url = config.get("url")
    if not url:
        meaning.warm()  # the matcher's sentence encoder reads its weights now
        return deterministic.answer
    import httpx2

    from server.answering.model import ModelAnswerer

    timeout = float(config.get("timeout") or 20.0)
    client = httpx2.Client(timeout=timeout)  # certificates and proxies are read now
    model = ModelAnswerer(
        url, config.get("model") or "", config.get("api_key"), timeout, client=client
    )
    client.build_request("POST", model.url, json={})  # warm the lazily imported parts of a request
    return model


def _probe(message: ProbeCall) -> ProbeReport:
    import errno
    import socket

    def outcome(action: Callable[[], object]) -> str:
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
    return {
        "open": {p: outcome(partial(read, p)) for p in message.paths},
        "listdir": {p: outcome(partial(os.listdir, p)) for p in message.listdirs},
        "connect": {str(port): outcome(partial(connect, port)) for port in message.connect},
        "env": sorted(os.environ),
        "uid": os.getuid(),
        "fds": fds,
    }


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

    def send(message: Mapping[str, object]) -> None:
        out.write(json.dumps(message).encode() + b"\n")

    stdin = sys.stdin.buffer
    try:
        config: WorkerConfig = json.loads(stdin.readline())
        answerer = _answerer(config)
        report = sandbox.confine(connect_ports=AnswererConfig(url=config.get("url")).ports())
    except Exception as exc:  # fail closed: a worker that cannot confine itself answers nothing
        send({"error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(2) from None
    send({"ready": report})
    for line in stdin:
        try:
            call = CALLS.validate_json(line)
            if isinstance(call, ProbeCall):
                send(_probe(call) if config.get("probe") else {"error": "unknown request"})
                continue
            out.write(selection_line(answerer(call.request, call.terms, list(call.notes))))
        except Exception as exc:  # one bad request does not end the worker; the caller escalates
            send({"error": f"{type(exc).__name__}: {exc}"})


if __name__ == "__main__":  # pragma: no cover
    worker_main()
