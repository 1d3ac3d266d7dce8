"""Parley on PostgreSQL with several worker processes, next to Parley on SQLite in one process and the
bare MCP SDK server, under wrk: `tools/list` and `tools/call whoami`, throughput and p50/p99, with
ratios against the bare server of the same run (interleaved rounds, so noise lands on all three).

    scripts/bench --database postgresql --workers 2 [--seconds S] [--rounds R] [--connections 32]

The PostgreSQL is a throwaway cluster from Debian's binaries (scripts/postgres) on a free loopback
port, stopped at the end. Parley is driven through its console script only: `parley keys init`,
`parley db migrate`, `parley demo`, `parley serve --workers N`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_http as http  # noqa: E402 - the shared wrk driver and contenders
import bench_trips  # noqa: E402 - round trips by credential

METHODS = {"call": "tools/call whoami", "list": "tools/list"}


def cpu_seconds(root: int) -> float:
    """CPU time so far of a process and every descendant (from /proc; 0 where it cannot be read)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
    family, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in family} - family
        grown = bool(more)
        family |= more
    return sum(times.get(pid, 0.0) for pid in family)


def postmaster_pid(folder: Path | None) -> int | None:
    """The throwaway PostgreSQL's postmaster (its backends are its children), from its pid file."""
    try:
        return int((folder / "data" / "postmaster.pid").read_text().split()[0]) if folder else None
    except (OSError, ValueError, IndexError):
        return None


def wait_quiet(roots: list[int], limit: float = 120.0) -> float:
    """Wait until the contenders' processes (with their answering workers, which load their models
    once started) use under a tenth of a core between two looks a second apart; the seconds waited."""
    started = time.monotonic()
    before = sum(cpu_seconds(root) for root in roots)
    while time.monotonic() - started < limit:
        time.sleep(1.0)
        now = sum(cpu_seconds(root) for root in roots)
        if now - before < 0.1:
            break
        before = now
    return time.monotonic() - started


def postgres_store(
    work: Path, manifest: Path, demo_output: list[str] | None = None
) -> tuple[dict[str, str], str, Path]:
    """A throwaway PostgreSQL with the demo club: the env to serve it, the member's token, its folder
    (and `parley demo`'s output appended to `demo_output`: its passwords)."""
    folder = Path(
        tempfile.mkdtemp(prefix="parley-bench-pg-")
    )  # its own: the server runs as another user
    started = subprocess.run(
        [str(http.ROOT / "scripts" / "postgres"), "start", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if started.returncode != 0:
        raise SystemExit(f"could not start PostgreSQL: {started.stderr[-1000:]}")
    base = started.stdout.strip().splitlines()[-1]
    subprocess.run(
        ["psql", base, "-qc", "CREATE DATABASE parley_bench"], check=True, capture_output=True
    )
    env = {
        "PARLEY_DATABASE_URL": base.rsplit("/", 1)[0] + "/parley_bench",
        "PARLEY_KEYS": str(work / "pg-keys"),
        "PARLEY_MANIFEST": str(manifest),
        "PARLEY_DB": str(work / "pg-unused.db"),
    }
    for command in (["keys", "init"], ["db", "migrate"]):
        done = subprocess.run(
            [str(http.PARLEY), *command],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=120,
            cwd=str(work),
        )
        if done.returncode != 0:
            raise SystemExit(f"parley {' '.join(command)} failed: {done.stderr[-1000:]}")
    demo = subprocess.run(
        [str(http.PARLEY), "demo"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(work),
    )
    if demo.returncode != 0:
        raise SystemExit(f"parley demo failed: {demo.stderr[-1000:]}")
    if demo_output is not None:
        demo_output.append(demo.stdout)
    return env, http.parse_member_token(demo.stdout), folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=["postgresql"], required=True)
    parser.add_argument(
        "--workers", type=int, default=2, help="Parley worker processes on PostgreSQL"
    )
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    wrk = http.ensure_wrk()
    loop, http_impl, loop_why = http.loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-cluster-"))
    pg_folder: Path | None = None
    contenders: list[http.Contender] = []
    print(
        f"bench_cluster: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; loop {loop}, http "
        f"{http_impl} ({loop_why}); wrk {args.threads} thread(s), {args.connections} connections, "
        f"{args.seconds:g} s a run, {args.rounds} round(s) interleaved"
    )
    try:
        manifest = http.bench_manifest(work)
        env, token = http.prepare_store(work / "sqlite", manifest)
        sqlite = http.parley_contender("full", work / "sqlite", env, token, loop, http_impl)
        demo_output: list[str] = []
        pg_env, pg_token, pg_folder = postgres_store(work, manifest, demo_output)
        pg = http.parley_contender(
            "full-pg",
            work,
            pg_env,
            pg_token,
            loop,
            http_impl,
            serve_args=("--workers", str(args.workers)),
        )
        pg.label = f"Parley on PostgreSQL, `parley serve --workers {args.workers}` (stateless HTTP), same settings"
        sqlite.label = "Parley on SQLite, one process (`parley serve`), the peers' uvicorn settings"
        contenders += [sqlite, pg]
        sqlite.start()
        sqlite.wait_up()
        tools, scopes = http.tool_specs(sqlite, manifest, work)
        bare = http.peer_contenders({"bare"}, tools, scopes, token, loop, http_impl, work, [])[0]
        contenders.append(bare)
        for contender in (pg, bare):
            contender.start()
            contender.wait_up()
        time.sleep(1.0)  # every worker up, not just the first
        for contender in contenders:
            http.check_contender(contender)
            print(f"  {contender.name:<8} {contender.label}")
        roots = [c.proc.pid for c in contenders if c.proc is not None]
        print(f"  (the servers and their answering workers quiet after {wait_quiet(roots):.1f} s)")
        for contender in contenders:
            for method in METHODS:
                http.wrk_run(
                    wrk, contender, args.connections, 2, args.threads, work, method=method
                )  # warm-up
        runs: list[tuple[str, str, int, http.Run]] = []
        trips = [
            0.0,
            0.0,
        ]  # round trips to PostgreSQL and whoami calls, over the measured whoami runs
        # CPU seconds and requests over the whoami runs, by who spent them: what a request costs the
        # machine, which a shared machine's load moves far less than it moves throughput
        postmaster = postmaster_pid(pg_folder)
        families = {
            "SQLite process": ([sqlite.proc.pid] if sqlite.proc else [], "full"),
            f"PostgreSQL workers ({args.workers})": ([pg.proc.pid] if pg.proc else [], "full-pg"),
            "PostgreSQL server": ([postmaster] if postmaster else [], "full-pg"),
        }
        cpu: dict[str, list[float]] = {family: [0.0, 0.0] for family in families}
        for round_number in range(1, args.rounds + 1):
            shift = (round_number - 1) % len(contenders)
            for method in METHODS:
                for contender in contenders[shift:] + contenders[:shift]:
                    measured = contender is pg and method == "call"
                    before = bench_trips.counts(pg.port) if measured else (0.0, 0.0, 0.0)
                    mine = [
                        family
                        for family, (_, name) in families.items()
                        if name == contender.name and method == "call"
                    ]
                    cpu_before = {f: sum(map(cpu_seconds, families[f][0])) for f in mine}
                    run = http.wrk_run(
                        wrk,
                        contender,
                        args.connections,
                        args.seconds,
                        args.threads,
                        work,
                        round_number=round_number,
                        method=method,
                    )
                    for family in mine:
                        spent = sum(map(cpu_seconds, families[family][0])) - cpu_before[family]
                        cpu[family][0] += spent
                        cpu[family][1] += run.detail.get("requests", 0)
                    if measured:
                        after = bench_trips.counts(pg.port)  # all statements, whoami calls
                        trips[0] += after[1] - before[1]
                        trips[1] += after[2] - before[2]
                    runs.append((contender.name, method, round_number, run))
                    print(
                        f"round {round_number} {METHODS[method]:<18} {contender.name:<8} {http.run_line(run)}",
                        flush=True,
                    )
                    time.sleep(0.5)
        # bruno is a member in the demo club, with an agent to grant to
        password = bench_trips.demo_password(demo_output[0], "bruno")
        by_credential = {
            "bearer": pg_token,
            "OAuth": bench_trips.oauth_token(pg.port, "bruno", password),
            "guest": None,
        }
        per_credential = {
            name: bench_trips.trips_per_whoami(pg.port, token)
            for name, token in by_credential.items()
        }
    finally:
        for contender in contenders:
            contender.stop()
        if pg_folder is not None:
            subprocess.run(
                [str(http.ROOT / "scripts" / "postgres"), "stop", str(pg_folder)],
                capture_output=True,
            )
            shutil.rmtree(pg_folder, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"\nMedians over clean runs at {args.connections} connections, and ratios against bare (same run)"
    )
    print(
        f"{'operation':<18} {'contender':<8} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}  "
        f"{'req/s / bare':>12} {'p50 / bare':>10} {'p99 / bare':>10}  clean/runs"
    )
    for method, label in METHODS.items():
        medians = {}
        for name in ("full", "full-pg", "bare"):
            mine = [run for who, m, _, run in runs if who == name and m == method]
            clean = [run for run in mine if run.clean]
            medians[name] = (
                statistics.median([r.rps for r in clean]) if clean else None,
                statistics.median([r.p50_ms for r in clean]) if clean else None,
                statistics.median([r.p99_ms for r in clean]) if clean else None,
                len(clean),
                len(mine),
            )
        base = medians["bare"]
        for name in ("full", "full-pg", "bare"):
            rps, p50, p99, clean, total = medians[name]
            ratios = [
                f"{mine / theirs:.3f}" if mine and theirs else "n/a"
                for mine, theirs in ((rps, base[0]), (p50, base[1]), (p99, base[2]))
            ]
            print(
                f"{label:<18} {name:<8} {http.fmt(rps, 1):>9} {http.fmt(p50, 2):>8} {http.fmt(p99, 2):>8}  "
                f"{ratios[0]:>12} {ratios[1]:>10} {ratios[2]:>10}  {clean}/{total}"
            )
    if trips[1]:
        print(
            f"round trips per whoami = {trips[0] / trips[1]:.3f}   ({trips[0]:.0f} statements to PostgreSQL for "
            f"{trips[1]:.0f} whoami calls, counted by parley_store_statements_total across the workers)"
        )
    for family, (seconds, requests) in cpu.items():
        if requests:
            print(
                f"CPU per whoami, {family}: {seconds / requests * 1e6:.0f} µs "
                f"({seconds:.1f} s over {requests:.0f} requests)"
            )
    for name, trips_each in per_credential.items():
        print(
            f"round trips per whoami ({name}, 100 sequential calls) = {trips_each[0]:.3f} serving "
            f"the requests, {trips_each[1]:.3f} with the background's"
        )
    whoami = {
        name: statistics.median(
            [r.rps for who, m, _, r in runs if who == name and m == "call" and r.clean]
        )
        for name in ("full", "full-pg")
        if any(who == name and m == "call" and r.clean for who, m, _, r in runs)
    }
    if len(whoami) == 2:
        print(
            f"ratio PostgreSQL ({args.workers} workers) / SQLite (1 process) whoami throughput = "
            f"{whoami['full-pg'] / whoami['full']:.3f}"
        )
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
