"""`whoami` while 60 callers keep asking members whose answering model takes seconds: p50/p99 under that
load as ratios of the same server's unloaded figures, on SQLite (one process) and on PostgreSQL
(`parley serve --workers 2`). An ask that waits for a model must hold no thread and no store
connection, so other callers should not notice it.

    scripts/bench --slow-asks [--delay 2] [--calls 400] [--askers 60] [--skip-postgresql]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cluster  # noqa: E402 - the throwaway PostgreSQL with the demo club
import bench_http as http  # noqa: E402 - the stdlib MCP client and Parley's contender
from bench_peers.populate import member_askers  # noqa: E402 - members who ask, made fast


def slow_model(delay: float) -> ThreadingHTTPServer:
    """An OpenAI-compatible endpoint that thinks for `delay` seconds, then says no note answers."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["content-length"]))
            time.sleep(delay)
            data = json.dumps(
                {"choices": [{"message": {"content": '{"escalate": "slow"}'}}]}
            ).encode()
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def whoami_times(port: int, token: str, calls: int) -> list[float]:
    session = http.open_session(port, token)
    try:
        times = []
        for _ in range(calls):
            started = time.perf_counter()
            http.call(port, session, token, "tools/call", {"name": "whoami", "arguments": {}})
            times.append((time.perf_counter() - started) * 1000)
        return times
    finally:
        http.close_session(port, session, token)


def askers(
    port: int, tokens: list[str], count: int, stop: threading.Event, tally: dict[str, int]
) -> list:
    """`count` callers, each asking again as soon as it has an answer (told "busy", it waits as told)."""

    def loop(token: str, member: str) -> None:
        session = http.open_session(port, token)
        try:
            while not stop.is_set():
                result = http.call(
                    port,
                    session,
                    token,
                    "tools/call",
                    {
                        "name": "ask",
                        "arguments": {"member": member, "question": "Is she taking on new work?"},
                    },
                )
                told = (
                    re.search(r"retry in (\d+) s", json.dumps(result))
                    if result.get("isError")
                    else None
                )
                tally["busy" if told else "asked"] += 1
                if told:  # as a well-behaved client does: wait as long as it was told
                    stop.wait(float(told.group(1)))
        except Exception as exc:  # noqa: BLE001 - a broken asker is reported, not hidden
            tally["failed"] += 1
            print(f"  an asker stopped: {exc}", flush=True)
        finally:
            http.close_session(port, session, token)

    threads = [
        threading.Thread(
            target=loop, args=(tokens[n % len(tokens)], ("ana", "bruno")[n % 2]), daemon=True
        )
        for n in range(count)
    ]
    for thread in threads:
        thread.start()
    return threads


def measure(
    name: str, contender: http.Contender, env: dict[str, str], work: Path, args
) -> dict[str, float]:
    tokens = member_askers(env, work, 15)
    contender.start()
    contender.wait_up()
    time.sleep(1.0)
    whoami_times(contender.port, contender.token or "", 50)  # warm-up
    quiet = whoami_times(contender.port, contender.token or "", args.calls)
    stop, tally = threading.Event(), {"asked": 0, "busy": 0, "failed": 0}
    threads = askers(contender.port, tokens, args.askers, stop, tally)
    time.sleep(args.delay + 1)  # every asker has a question in flight or has been told to wait
    loaded = whoami_times(contender.port, contender.token or "", args.calls)
    stop.set()
    for thread in threads:
        thread.join(args.delay + 30)
    contender.stop()
    q50, q99 = statistics.median(quiet), statistics.quantiles(quiet, n=100)[98]
    l50, l99 = statistics.median(loaded), statistics.quantiles(loaded, n=100)[98]
    print(
        f"{name:<10} whoami unloaded p50 {q50:.2f} ms p99 {q99:.2f} ms; with {args.askers} slow askers p50 "
        f"{l50:.2f} ms p99 {l99:.2f} ms; asks answered {tally['asked']}, told busy {tally['busy']}, "
        f"askers failed {tally['failed']}"
    )
    print(f"ratio {name} whoami p99 loaded/unloaded = {l99 / q99:.3f}")
    print(f"ratio {name} whoami p50 loaded/unloaded = {l50 / q50:.3f}", flush=True)
    return {"p99": l99 / q99, "p50": l50 / q50}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow-asks", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--delay", type=float, default=2.0, help="seconds the model thinks per question"
    )
    parser.add_argument(
        "--calls", type=int, default=400, help="sequential whoami calls per measurement"
    )
    parser.add_argument("--askers", type=int, default=60, help="callers asking at once")
    parser.add_argument("--skip-postgresql", action="store_true")
    args = parser.parse_args()
    model = slow_model(args.delay)
    loop, http_impl, _ = http.loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-slow-"))
    pg_folder: Path | None = None
    answerer = {
        "PARLEY_ANSWERER_URL": f"http://127.0.0.1:{model.server_port}/v1",
        "PARLEY_ANSWERER_MODEL": "slow",
    }
    print(
        f"bench_slow_asks: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; model delay "
        f"{args.delay:g} s; {args.askers} askers; {args.calls} whoami calls per measurement"
    )
    try:
        manifest = http.bench_manifest(work)
        env, token = http.prepare_store(work / "sqlite", manifest)
        env = {**env, **answerer}
        sqlite = http.parley_contender("full", work / "sqlite", env, token, loop, http_impl)
        measure("sqlite", sqlite, env, work / "sqlite", args)
        if not args.skip_postgresql:
            pg_env, pg_token, pg_folder = bench_cluster.postgres_store(work, manifest)
            pg_env = {**pg_env, **answerer}
            pg = http.parley_contender(
                "full-pg", work, pg_env, pg_token, loop, http_impl, serve_args=("--workers", "2")
            )
            measure("postgresql", pg, pg_env, work, args)
    finally:
        model.shutdown()
        if pg_folder is not None:
            subprocess.run(
                [str(http.ROOT / "scripts" / "postgres"), "stop", str(pg_folder)],
                capture_output=True,
            )
            shutil.rmtree(pg_folder, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
