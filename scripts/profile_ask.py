"""Where a sequential `ask` spends its time, step by step, on one Parley server as `parley serve` runs it.

Timing stamps, not a sampling profiler: the server is built in this process (`server.app.build`) and
served by uvicorn on 127.0.0.1; a client process asks (bruno asks ana, the deterministic answerer in
the answering pool) and times `whoami` beside it. The steps are timed by wrapping the functions that
do them (nothing in `server/` is changed for this):

  prepare                  Escalations._prepare's own work: idempotency, the member, the mandate, notes
  prepare (await)          the same, as the event loop waited for it (a worker-thread hop, when it takes one)
  select (await)           the answerer's Selection, as the loop waited for it (AnswererPool.answer)
  answer_sync (thread)     the same inside the pool's executor thread, when it takes that path
  worker round trip (…)    WorkerProcess.call / call_async: write the request, the worker answers, read the reply
  reply waited for (loop)  the part of call_async the loop waited for the reply (n: how many calls waited;
                           the others found it there when the write returned)
  compose                  grounding.compose: the flag checks on the chosen notes, the templates
  record                   Escalations._record's own work: the thread, its messages, the commit
  record (await)           the same, as the loop waited for it (when it takes a thread hop)
  chokepoint               Chokepoint.call for ask: validation, rules, the tool, the audit record
  hop: write → worker reads   from before the loop writes the request until the worker has read it (its wake)
  hop: worker works           the worker: the request checked, the answerer, the reply made (not yet written)
  hop: reply → loop has it    from then until the loop has read the reply (the reply's write, the loop's wake)
                           (the worker's stamps are its own time.perf_counter(), one clock for every process on
                           Linux; it sends them on its stderr 64 calls at a time, off the calls' path)
  lean serve               LeanExchange._serve, by tool: the server's whole answer after the body is read
  request (client)         the whole request as the client saw it

    .venv/bin/python scripts/profile_ask.py [--requests 400]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import bench_http as http  # noqa: E402 - the stdlib MCP client, the demo store

STAMPS: dict[str, list[float]] = defaultdict(list)
# each worker call on the loop: (before its request's write, its reply read)
WRITES: list[tuple[float, float]] = []
# each call in a worker, on the same clock: (its request read, its reply made)
WORKED: list[tuple[float, float]] = []

# The worker as the pool boots it, its request check and reply stamped.
WORKER_BOOT = (
    "import sys, time; sys.path.insert(0, sys.argv[1]); "
    "from server.answering import worker; "
    "check, reply, kept, started = worker.CALLS.validate_json, worker.selection_line, [], [0.0]\n"
    "class Stamped:\n"
    "    def validate_json(self, line):\n"
    "        started[0] = time.perf_counter()\n"
    "        return check(line)\n"
    "def stamped_reply(selection):\n"
    "    line = reply(selection)\n"
    "    kept.append(f'{started[0]:.7f} {time.perf_counter():.7f}')\n"
    "    if len(kept) >= 64:\n"
    "        sys.stderr.write('stamps ' + ' '.join(kept) + '\\n'); sys.stderr.flush(); kept.clear()\n"
    "    return line\n"
    "worker.CALLS, worker.selection_line = Stamped(), stamped_reply\n"
    "worker.worker_main()"
)


def timed(name: str, function, is_async: bool):
    if is_async:

        @functools.wraps(function)
        async def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                STAMPS[name].append((time.perf_counter() - started) * 1000)
    else:

        @functools.wraps(function)
        def wrapper(*args, **kwargs):  # type: ignore[misc]
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                STAMPS[name].append((time.perf_counter() - started) * 1000)

    return wrapper


def instrument() -> None:
    import anyio.to_thread

    from server.answering import pool, worker_process
    from server.asking import escalations
    from server.chokepoint import chokepoint
    from server.http import lean

    Escalations = escalations.Escalations
    Escalations._prepare = timed("prepare", Escalations._prepare, False)
    Escalations._record = timed("record", Escalations._record, False)
    Escalations._select = timed("select (await)", Escalations._select, True)
    escalations.compose = timed("compose", escalations.compose, False)
    pool.AnswererPool.answer_sync = timed(
        "answer_sync (thread)", pool.AnswererPool.answer_sync, False
    )
    worker_process.WorkerProcess.call = timed(
        "worker round trip (thread)", worker_process.WorkerProcess.call, False
    )
    worker_process.WorkerProcess.call_async = timed(
        "worker round trip (loop)", worker_process.WorkerProcess.call_async, True
    )
    worker_process.WorkerProcess._readable_line = timed(
        "reply waited for (loop)", worker_process.WorkerProcess._readable_line, True
    )
    worker_process._BOOT = WORKER_BOOT

    def drained(self):  # the stamps' lines kept apart from what the worker says
        for line in self.proc.stderr:
            text = line.decode("utf-8", "replace")
            if text.startswith("stamps "):
                values = [float(v) for v in text.split()[1:]]
                WORKED.extend(zip(values[::2], values[1::2], strict=True))
            else:
                self.stderr.append(text.rstrip())

    worker_process.WorkerProcess._drain = drained
    call_async = worker_process.WorkerProcess.call_async

    async def stamped_call(self, line, budget, *args):
        started = time.perf_counter()
        try:
            return await call_async(self, line, budget, *args)
        finally:
            WRITES.append((started, time.perf_counter()))

    worker_process.WorkerProcess.call_async = stamped_call
    original_call = chokepoint.Chokepoint.call

    async def call(self, caller, name, arguments):
        started = time.perf_counter()
        try:
            return await original_call(self, caller, name, arguments)
        finally:
            STAMPS[f"chokepoint {name}"].append((time.perf_counter() - started) * 1000)

    chokepoint.Chokepoint.call = call
    serve = lean.LeanExchange._serve

    async def serve_timed(self, exchange, send):  # what the server spends beyond the chokepoint
        started = time.perf_counter()
        try:
            return await serve(self, exchange, send)
        finally:
            tool = (exchange.message.params or {}).get("name", exchange.message.method)
            STAMPS[f"lean serve {tool}"].append((time.perf_counter() - started) * 1000)

    lean.LeanExchange._serve = serve_timed
    run_sync = anyio.to_thread.run_sync

    async def hop(function, *args, **kwargs):  # the loop's wait for a worker thread, by what it ran
        started = time.perf_counter()
        try:
            return await run_sync(function, *args, **kwargs)
        finally:
            label = getattr(function, "__name__", "?")
            if label in ("_prepare", "_record"):
                STAMPS[f"{label[1:]} (await)"].append((time.perf_counter() - started) * 1000)

    escalations.anyio.to_thread.run_sync = hop  # type: ignore[attr-defined]


CLIENT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import bench_http as http
port, token, requests = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
session = http.open_session(port, token)
ask = {"name": "ask", "arguments": {"member": "ana", "question": "Is she taking on new work?"}}
who = {"name": "whoami", "arguments": {}}
for _ in range(50):
    http.call(port, session, token, "tools/call", ask)
    http.call(port, session, token, "tools/call", who)
print("warm", flush=True)
sys.stdin.readline()
times = {"request ask (client)": [], "request whoami (client)": []}
for _ in range(requests):
    for label, params in (("request ask (client)", ask), ("request whoami (client)", who)):
        started = time.perf_counter()
        result = http.call(port, session, token, "tools/call", params)
        times[label].append((time.perf_counter() - started) * 1000)
        if result.get("isError"):
            raise SystemExit(f"{params['name']} failed: {result}")
print(json.dumps(times), flush=True)
"""


def client(port: int, token: str, requests: int, done: threading.Event) -> None:
    """The asking client in a process of its own, so its work shares no interpreter lock with the
    server's; the server's stamps are cleared once the client has warmed up."""
    try:
        here = str(Path(__file__).resolve().parent)
        command = [sys.executable, "-c", CLIENT, here, str(port), token, str(requests)]
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
        with subprocess.Popen(command, text=True, **pipes) as asking:
            assert asking.stdin is not None and asking.stdout is not None
            if asking.stdout.readline().strip() != "warm":
                raise RuntimeError("the asking client did not warm up")
            STAMPS.clear()
            WRITES.clear()
            asking.stdin.write("\n")
            asking.stdin.flush()
            measured = asking.stdout.readline()
            if not measured:
                raise RuntimeError("the asking client ended without its timings")
            STAMPS.update(json.loads(measured))
    finally:
        done.set()


def hops(calls: list[tuple[float, float]], worked: list[tuple[float, float]]) -> None:
    """Each call on the loop split at the worker's stamps that fall inside it."""
    worked = sorted(worked)
    for written, read in calls:
        inside = [w for w in worked if written <= w[0] and w[1] <= read]
        if len(inside) == 1:
            ((began, ended),) = inside
            STAMPS["hop: write → worker reads"].append((began - written) * 1000)
            STAMPS["hop: worker works"].append((ended - began) * 1000)
            STAMPS["hop: reply → loop has it"].append((read - ended) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="parley-profile-ask-"))
    env, token = http.prepare_store(work / "full", http.bench_manifest(work))
    port = http.free_port()
    os.environ.update({**env, "PARLEY_PORT": str(port)})
    instrument()
    import uvicorn

    from server.app import build
    from server.settings import Settings

    app = build(Settings.from_env()).app
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        loop="uvloop",
        http="httptools",
    )
    server = uvicorn.Server(config)
    done = threading.Event()

    async def serve() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        thread = threading.Thread(
            target=client, args=(port, token, args.requests, done), daemon=True
        )
        thread.start()
        while not done.is_set():
            await asyncio.sleep(0.05)
        server.should_exit = True
        await task

    asyncio.run(serve())
    hops(WRITES, WORKED)
    print(f"{'step':<28} {'n':>5} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, samples in sorted(STAMPS.items()):
        if len(samples) < 10:
            continue
        q = statistics.quantiles(samples, n=100, method="inclusive")
        print(
            f"{name:<28} {len(samples):>5} {statistics.median(samples):8.3f} {q[89]:8.3f} {q[98]:8.3f} "
            f"{max(samples):8.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
