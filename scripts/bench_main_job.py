"""The main job, not just `whoami`: what members' agents mostly call, on one Parley server as it runs.

`ask` (the deterministic answerer in the server's answering pool of confined worker processes, as
`parley serve` runs it), `search_directory`, `inbox` and `tools/list` beside `whoami`:

- sequential: one MCP session, the member's token, the operations in short turns in a new order
  each time (so a neighbour's burst lands on all of them), p50/p99 per operation;
- concurrent: wrk at 32 and 100 connections; Parley's requests take member callers in turn, each
  over the session it opened (one principal may hold at most 64 sessions). `ask` has in-flight
  bounds (per asker, per member asked, per process): its runs use only the askers (members made as
  the scale section makes them), half asking each demo member, and a question refused by a bound
  ("busy: … retry in 5 s") is counted apart and shown, never hidden;
- MiniMCP's `whoami` (stateless, no auth: the floor) under the same wrk settings, for the ratios.

Printed as `ratio … = X` lines: each operation against Parley's own `whoami` and against MiniMCP's.

    scripts/bench --main-job [--requests 600] [--seconds 5] [--rounds 2] [--connections 32,100]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_http as http  # noqa: E402 - the stdlib MCP client, wrk, Parley's contender and MiniMCP's
from bench_peers.populate import member_askers  # noqa: E402 - members who ask, made fast

QUESTIONS = {"ana": "Is she taking on new work?", "bruno": "Is he hiring this quarter?"}
OPERATIONS: dict[str, dict] = {
    "whoami": {"name": "whoami", "arguments": {}},
    "ask": {"name": "ask", "arguments": {"member": "ana", "question": QUESTIONS["ana"]}},
    "search_directory": {"name": "search_directory", "arguments": {"query": "design"}},
    "inbox": {"name": "inbox", "arguments": {}},
    "tools/list": {},
}
ASKERS = 26  # members asking in the concurrent ask runs: more than 100 connections / 4 (the per-asker bound)


def send(port: int, session: str, token: str, op: str) -> dict:
    if op == "tools/list":
        return http.call(port, session, token, "tools/list", {})
    result = http.call(port, session, token, "tools/call", OPERATIONS[op])
    if result.get("isError"):
        raise RuntimeError(f"{op} answered a tool error: {json.dumps(result)[:300]}")
    return result


def sequential(port: int, token: str, requests: int, turn: int) -> dict[str, list[float]]:
    session = http.open_session(port, token)
    try:
        for op in OPERATIONS:  # warm-up, and a check that every operation answers
            for _ in range(30):
                send(port, session, token, op)
        times: dict[str, list[float]] = {op: [] for op in OPERATIONS}
        order = random.Random(0)
        for _ in range(0, requests, turn):
            names = list(OPERATIONS)
            order.shuffle(names)
            for op in names:
                for _ in range(turn):
                    started = time.perf_counter()
                    send(port, session, token, op)
                    times[op].append((time.perf_counter() - started) * 1000)
        return times
    finally:
        http.close_session(port, session, token)


def p(samples: list[float], q: int) -> float:
    return (
        statistics.quantiles(samples, n=100, method="inclusive")[q - 1]
        if q != 50
        else statistics.median(samples)
    )


def params_file(work: Path, name: str, params: dict) -> Path:
    path = work / f"params-{name.replace('/', '_')}.json"
    path.write_text(json.dumps(params))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--main-job", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--requests", type=int, default=600, help="sequential requests per operation"
    )
    parser.add_argument(
        "--turn", type=int, default=50, help="sequential requests per operation per turn"
    )
    parser.add_argument("--seconds", type=float, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=2, help="wrk rounds, interleaved")
    parser.add_argument("--connections", default="32,100")
    parser.add_argument("--no-concurrent", action="store_true", help="the sequential section only")
    args = parser.parse_args()
    loop, http_impl, why = http.loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-main-"))
    print(
        f"bench_main_job: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; loop {loop}, "
        f"http {http_impl} ({why}); work folder {work}"
    )
    contenders: list[http.Contender] = []
    try:
        manifest = http.bench_manifest(work)
        env, token = http.prepare_store(work / "full", manifest)
        askers = (
            [] if args.no_concurrent else member_askers(env, work / "full", ASKERS, first=token)
        )
        full = http.parley_contender("full", work / "full", env, token, loop, http_impl)
        contenders.append(full)
        full.start()
        full.wait_up()
        times = sequential(full.port, token, args.requests, args.turn)
        print(
            f"\n== Sequential: one session, the member's token, {args.requests} requests per operation in turns "
            f"of {args.turn}, a new order each turn; ask: bruno asks ana, the deterministic answerer in the "
            "answering pool"
        )
        print(f"{'operation':<18} {'p50 ms':>8} {'p99 ms':>8}")
        for op, samples in times.items():
            print(f"{op:<18} {p(samples, 50):8.3f} {p(samples, 99):8.3f}")
        who50 = p(times["whoami"], 50)
        for op, samples in times.items():
            if op != "whoami":
                print(f"ratio {op}/whoami p50 = {p(samples, 50) / who50:.3f}")
        for op, samples in times.items():
            print(f"ratio {op} p99/p50 = {p(samples, 99) / p(samples, 50):.3f}")
        if args.no_concurrent:
            return 0

        wrk = http.ensure_wrk()
        tools, _ = http.tool_specs(full, manifest, work)
        notes: list[str] = []
        contenders += http.peer_contenders(
            {"minimcp"}, tools, [], token, loop, http_impl, work, notes
        )
        minimcp = next((c for c in contenders if c.name == "minimcp"), None)
        if minimcp is not None:
            minimcp.start()
            minimcp.wait_up()
            http.check_contender(minimcp)
        for note in notes:
            print(f"note: {note}")
        connections = [int(c) for c in args.connections.split(",")]
        files = {
            op: ("list" if op == "tools/list" else str(params_file(work, op, params)))
            for op, params in OPERATIONS.items()
        }
        # Asker i asks ana when i is even, bruno when odd (ASKERS is even), over the session its token opened.
        asks = work / "params-asks.json"
        asks.write_text(
            "".join(
                json.dumps({"name": "ask", "arguments": {"member": member, "question": question}})
                + "\n"
                for member, question in QUESTIONS.items()
            )
        )
        # The other operations: the demo member and the askers in turn, each over the session it opened
        # (a principal may hold at most 64 sessions, so one member's token cannot open 100).
        callers = [token, *askers]
        with ThreadPoolExecutor(8) as pool:
            caller_sessions = list(pool.map(lambda t: http.open_session(full.port, t), callers))
        asker_sessions = caller_sessions[1:]
        print(
            f"\n== Concurrent: wrk, one thread, {args.seconds:g} s a run, {args.rounds} round(s), connections "
            f"{args.connections}; Parley: {len(callers)} member callers in turn (the demo member and "
            f"{len(askers)} askers), each request with its caller's token and the session that caller opened "
            f"(a principal may hold 64 sessions); MiniMCP: stateless. ask: the {len(askers)} askers only, "
            f"half asking ana, half bruno "
            f"(bounds: 4 per asker, 8 per member asked, 16 per process with 2 answering workers); "
            "'busy' = asks refused by a bound, counted apart"
        )
        runs: dict[tuple[str, int], list[http.Run]] = {}
        for round_number in range(1, args.rounds + 1):
            for conns in connections:
                print(f"round {round_number}, {conns} connections")
                for op in ["whoami", "search_directory", "inbox", "tools/list", "ask", "minimcp"]:
                    if op == "minimcp":
                        if minimcp is None:
                            continue
                        run = http.wrk_run(
                            wrk, minimcp, conns, args.seconds, 1, work, round_number=round_number
                        )
                    elif (
                        op == "ask"
                    ):  # the i-th request: the i-th asker, its session, ana or bruno in turn
                        run = http.wrk_run(
                            wrk,
                            full,
                            conns,
                            args.seconds,
                            1,
                            work,
                            tokens=askers,
                            paired=asker_sessions,
                            round_number=round_number,
                            method=str(asks),
                        )
                    else:
                        run = http.wrk_run(
                            wrk,
                            full,
                            conns,
                            args.seconds,
                            1,
                            work,
                            tokens=callers,
                            paired=caller_sessions,
                            round_number=round_number,
                            method=files[op],
                        )
                    runs.setdefault((op, conns), []).append(run)
                    busy = run.detail.get("busy", 0)
                    print(
                        f"  {op:<17} {http.run_line(run)}" + (f"   busy {busy}" if busy else ""),
                        flush=True,
                    )
                    time.sleep(0.3)
        print(
            "\nMedians over clean runs (req/s: answered requests; busy answers are not counted as answered)"
        )
        med: dict[tuple[str, int], float | None] = {}
        for (op, conns), mine in runs.items():
            clean = [r for r in mine if r.clean]
            med[(op, conns)] = http.median_or_none(
                [r.detail["ok"] / (r.detail["duration_us"] / 1e6) for r in clean]
            )
            busy = http.median_or_none(
                [r.detail.get("busy", 0) / (r.detail["duration_us"] / 1e6) for r in clean]
            )
            print(
                f"  {conns:>4} {op:<17} {http.fmt(med[(op, conns)], 1):>9} req/s   p50 "
                f"{http.fmt(http.median_or_none([r.p50_ms for r in clean]), 2)} ms   p99 "
                f"{http.fmt(http.median_or_none([r.p99_ms for r in clean]), 2)} ms"
                + (f"   busy {busy:.1f}/s" if busy else "")
                + f"   clean {len(clean)}/{len(mine)}"
            )
        for conns in connections:
            who, floor = med.get(("whoami", conns)), med.get(("minimcp", conns))
            for op in ["whoami", "ask", "search_directory", "inbox", "tools/list"]:
                mine = med.get((op, conns))
                if op != "whoami":
                    print(
                        f"ratio {op}/whoami throughput {conns} = {http.fmt(mine / who if mine and who else None)}"
                    )
                print(
                    f"ratio {op}/minimcp throughput {conns} = "
                    f"{http.fmt(mine / floor if mine and floor else None)}"
                )
        return 0
    finally:
        for contender in contenders:
            contender.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
