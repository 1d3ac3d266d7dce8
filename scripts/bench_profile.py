"""What each step of an authenticated `whoami` costs per request, under load, on Parley as it serves.

Parley is run as the HTTP bench runs it (`parley serve` through its console script, the peers'
uvicorn settings, the demo store) under py-spy (`pip install py-spy`); wrk drives `tools/call
whoami` over one MCP session per connection. Every sample's stack is given to one step: the step of
its innermost frame that belongs to a step in STEPS (so a frame of the gate that calls the store
counts as the store), and a step's share of the samples times the process's CPU time, divided by the
requests answered, is its cost in microseconds a request. The figures are a sampling estimate: read
them as where the time goes, side by side, before and after a change.

    .venv/bin/python scripts/bench_profile.py [--connections 32] [--seconds 10] [--rate 400]
        [--database postgresql]   (`parley serve` on a throwaway PostgreSQL; py-spy samples every
                                  thread, the admissions' included)
        [--workers 2]             (with PostgreSQL: that many worker processes, as `scripts/bench
                                  --database postgresql --workers 2` runs them; every one sampled)
        [--gil]                   (only samples holding the GIL: see --help)
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cluster  # noqa: E402
import bench_http as http  # noqa: E402
from bench_peers.wrk import wrk_run  # noqa: E402

# (step, substrings of a frame's file path); a sample goes to the step of its innermost frame that
# names one, so the libraries a step calls (pydantic, anyio, json, the event loop's callbacks) are
# counted in the step that called them. Order matters: the first step a frame matches is its step.
STEPS: list[tuple[str, tuple[str, ...]]] = [
    ("lean exchange (Parley)", ("server/http/lean.py",)),
    ("front door (Parley)", ("server/http/front.py",)),
    ("gate (Parley)", ("server/http/gate.py", "server/http/reading.py", "server/http/relay.py")),
    (
        "admission, identity, access",
        ("server/http/admission", "server/identity/", "server/access/"),
    ),
    ("rate limits", ("server/http/ratelimit",)),
    ("session shares", ("server/http/session_quota",)),
    ("endpoint middleware (Parley)", ("server/http/endpoint.py", "server/http/live.py")),
    ("audit", ("server/chokepoint/audit",)),
    ("chokepoint and tool", ("server/chokepoint/", "server/tools/")),
    ("store", ("server/store/",)),
    ("metrics", ("prometheus_client",)),
    ("Parley, other", (f"{http.ROOT}/server/",)),
    (
        "SDK session manager",
        ("mcp/server/streamable_http_manager", "mcp/server/transport_security"),
    ),
    ("SDK session transport", ("mcp/server/streamable_http.py", "mcp/shared/_context_streams")),
    ("SDK dispatcher", ("mcp/shared/jsonrpc_dispatcher", "mcp/shared/dispatcher")),
    ("SDK runner and handlers", ("mcp/server/", "mcp/shared/")),
    ("SDK message models", ("mcp_types/",)),
    ("Starlette", ("starlette/",)),
    (
        "uvicorn: parse",
        (
            "data_received (",
            "on_headers_complete (",
            "on_url (",
            "on_body (",
            "on_message_complete (",
        ),
    ),
    ("uvicorn: run and send", ("uvicorn/",)),
    ("anyio: scopes, streams, tasks", ("anyio/",)),
    ("event loop", ("asyncio/", "uvloop", "selectors")),
]


def step_of(stack: list[str]) -> str:
    """The step of the innermost frame that names one (frames are outermost first)."""
    for frame in reversed(stack):
        for step, marks in STEPS:
            if any(mark in frame for mark in marks):
                return step
    return "other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples a second")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (PostgreSQL only)")
    parser.add_argument(
        "--gil",
        action="store_true",
        help="only samples of a thread holding the GIL (py-spy --gil): a worker's time waiting in its "
        "event loop, which py-spy can count as busy, drops out; C code that releases the GIL too",
    )
    args = parser.parse_args()
    if args.workers > 1 and args.database != "postgresql":
        raise SystemExit("several workers share a store only on PostgreSQL: --database postgresql")
    spy = shutil.which("py-spy") or str(http.VENV / "bin" / "py-spy")
    if not Path(spy).exists():
        raise SystemExit("py-spy is missing: .venv/bin/pip install py-spy")
    wrk = http.ensure_wrk()
    loop, http_impl, _ = http.loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-profile-"))
    pg_folder: Path | None = None
    try:
        manifest = http.bench_manifest(work)
        if args.database == "postgresql":
            env, token, pg_folder = bench_cluster.postgres_store(work, manifest)
            (work / "full").mkdir()
        else:
            env, token = http.prepare_store(work / "full", manifest)
        serve_args = ("--workers", str(args.workers)) if args.workers > 1 else ()
        full = http.parley_contender(
            "full", work / "full", env, token, loop, http_impl, serve_args=serve_args
        )
        raw = work / "stacks.txt"
        full.start()
        full.wait_up()
        assert full.proc is not None
        pid = full.proc.pid  # the console script runs the server in its own process
        bench_cluster.wait_quiet([pid])  # every worker up, its answering workers' models loaded
        wrk_run(wrk, full, args.connections, 2, 1, work)  # warm-up
        # sampled from a moment after the sessions are open until the run ends: the run only
        seconds = max(1, round(args.seconds)) - 1
        command = [spy, "record", "--format", "raw", "--rate", str(args.rate), "--nonblocking"]
        command += ["--pid", str(pid), "--duration", str(seconds), "-o", str(raw)]
        if args.workers > 1:
            command.append("--subprocesses")  # the workers are the supervisor's children
        if args.gil:
            command.append("--gil")
        with (work / "py-spy.log").open("w") as spy_log:
            sampler = threading.Timer(
                0.5,
                lambda: samplers.append(subprocess.Popen(command, stdout=spy_log, stderr=spy_log)),
            )
            samplers: list[subprocess.Popen[bytes]] = []
            before = bench_cluster.cpu_seconds(pid)  # the server and its workers
            sampler.start()
            run = wrk_run(wrk, full, args.connections, args.seconds, 1, work)
            cpu = bench_cluster.cpu_seconds(pid) - before
            sampler.join()
            for process in samplers:
                process.wait(60)
        full.stop()
        counts: collections.Counter[str] = collections.Counter()
        for line in raw.read_text().splitlines():
            stack, _, number = line.rpartition(" ")
            if stack and number.isdigit():
                counts[step_of(stack.split(";"))] += int(number)
        total = sum(counts.values())
        requests = run.detail["requests"]
        print(
            f"whoami at {args.connections} connections: {run.rps:.0f} req/s, errors {run.errors}; "
            f"server CPU {cpu:.2f} s over the run; samples from {seconds} s of it"
        )
        print(f"CPU a request: {cpu / requests * 1e6:.0f} µs; {total} samples")
        print(f"{'step':<32} {'share':>7} {'µs/request':>11}")
        for step, count in counts.most_common():
            share = count / total
            print(f"{step:<32} {share:7.1%} {share * cpu / requests * 1e6:11.1f}")
    finally:
        if pg_folder is not None:
            subprocess.run(
                [str(http.ROOT / "scripts" / "postgres"), "stop", str(pg_folder)],
                capture_output=True,
            )
            shutil.rmtree(pg_folder, ignore_errors=True)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
