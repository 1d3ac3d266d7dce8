"""Whether an answering pool can answer, from what is known of its workers without waiting.

A worker is ready (its ready line came and it runs), starting (it runs and is its slot's first
try since the last success), or failed (it died or said an error before it was ready, or it is the
replacement of one that did: a retry proves nothing until it is ready). An empty slot, or one whose
worker died after it had started, counts as starting: the next call starts a worker there, as
one started there before. The pool can answer when one worker is ready or starting; when every one
failed to start, readiness must say so (a 503 naming the pool), not wait for a call to find out."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Protocol

from server.answering.worker_process import Message


class _Worker(Protocol):
    """What is read of a pool's worker (`worker_process.WorkerProcess`)."""

    proc: subprocess.Popen[bytes]
    report: Message | None
    retry: bool
    failed: bool


def state(worker: _Worker | None) -> str:
    """ready, starting or failed (see the module's docstring)."""
    if worker is None:
        return "starting"
    alive = worker.proc.poll() is None
    if worker.report is not None:
        return "ready" if alive else "starting"
    return "starting" if alive and not worker.retry and not worker.failed else "failed"


def verdict(workers: Sequence[_Worker | None]) -> str | None:
    """None when a worker is ready or starting; else what an operator needs to read."""
    if any(state(worker) != "failed" for worker in workers):
        return None
    return (
        f"no answering worker is alive or able to start: all {len(workers)} failed to start "
        "(see the server's log)"
    )
