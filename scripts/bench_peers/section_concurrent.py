"""The concurrent section of the HTTP bench: `tools/call whoami` under wrk at each connection count,
Parley (`full`, and `shipped`) beside its peers in interleaved rounds, with `ratio full/<peer>
throughput N = X` lines."""

from __future__ import annotations

import shutil
import time
from importlib import metadata
from pathlib import Path

from bench_peers.client import check_contender
from bench_peers.contender import Contender, Skip
from bench_peers.contender_bare import bare_contenders
from bench_peers.contender_fastmcp import fastmcp_contenders, jwt_token
from bench_peers.contender_minimcp import minimcp_contenders
from bench_peers.contender_parley import bench_manifest, parley_contender, prepare_store, tool_specs
from bench_peers.wrk import Run, fmt, median_or_none, run_line, wrk_run

ORDER = ["full", "shipped", "bare", "bare-json", "fastmcp", "fastmcp-jwt", "minimcp"]
RATIO_PEERS = [
    ("bare", "bare"),
    ("bare-json", "bare-json"),
    ("fastmcp", "fastmcp"),
    ("minimcp", "minimcp"),
    ("fastmcp-jwt", "fastmcp-jwt"),
    ("shipped", "shipped"),
]


def peer_contenders(
    names: set[str],
    tools: Path,
    scopes: list[str],
    member_token: str,
    loop: str,
    http_impl: str,
    work: Path,
    notes: list[str],
) -> list[Contender]:
    """The peers asked for, each with the same uvicorn (and loop/http packages) as Parley's."""
    impl = ["--loop", loop, "--http", http_impl]
    extra = [] if (loop, http_impl) == ("asyncio", "h11") else ["uvloop", "httptools"]
    pins = [f"uvicorn=={metadata.version('uvicorn')}", *extra]  # the same uvicorn as Parley's
    return [
        *bare_contenders(names, tools, impl, work),
        *fastmcp_contenders(names, tools, scopes, member_token, impl, pins, work, notes),
        *minimcp_contenders(names, tools, impl, pins, work, notes),
    ]


def concurrent(args, wrk: str, loop: str, http_impl: str, loop_why: str, work: Path) -> None:
    names = set(args.only.split(",")) if args.only else set(ORDER)
    unknown = names - set(ORDER)
    if unknown:
        raise SystemExit(
            f"--only: unknown contender(s) {', '.join(sorted(unknown))}; choose from {', '.join(ORDER)}"
        )
    names.add(
        "full"
    )  # the tools and the member's scopes come from it, and every ratio is against it
    manifest = bench_manifest(work)
    notes: list[str] = []
    contenders: list[Contender] = []
    try:
        env, token = prepare_store(work / "full", manifest)
        full = parley_contender("full", work / "full", env, token, loop, http_impl)
        contenders.append(full)
        if (
            "shipped" in names
        ):  # its own copy of the store, so neither server's audit rows land in the other's
            shutil.copytree(work / "full", work / "shipped")
            shipped_env = {
                **env,
                "PARLEY_DB": str(work / "shipped" / "club.db"),
                "PARLEY_KEYS": str(work / "shipped" / "keys"),
            }
            contenders.append(
                parley_contender("shipped", work / "shipped", shipped_env, token, loop, http_impl)
            )
        full.start()
        full.wait_up()
        if "bench: uvicorn settings applied" not in full.log.read_text(errors="replace"):
            notes.append(
                "WARNING: the uvicorn settings wrapper did not run for `full`: it ran with parley serve's own"
            )
        tools, scopes = tool_specs(full, manifest, work)
        peers = peer_contenders(names, tools, scopes, token, loop, http_impl, work, notes)
        contenders += peers
        ready: list[Contender] = [full]
        for contender in contenders[1:]:
            try:
                contender.start()
                contender.wait_up()
                jwt_token(contender, work)
                sample = check_contender(contender)
                ready.append(contender)
                del sample
            except (Skip, RuntimeError, OSError) as exc:
                notes.append(f"{contender.name} skipped: {exc}")
                contender.stop()
        check_contender(full)
        ready.sort(key=lambda c: ORDER.index(c.name))
        connections = [int(c) for c in args.connections.split(",")]

        print(
            f"\n== Concurrent: tools/call whoami under wrk {args.threads} thread(s), one MCP session per connection, "
            f"{args.seconds:g} s a run, {args.rounds} round(s) interleaved, connections {args.connections}"
        )
        print(
            f"uvicorn {metadata.version('uvicorn')} for all, one worker each, log level warning, no access log, "
            f"loop {loop}, http {http_impl} ({loop_why}); 'shipped' is the exception named below"
        )
        print(
            "sessions: opened before each run (initialize, notifications/initialized), one per connection, "
            "each wrk thread cycling through its own slice; closed after the run"
        )
        for contender in ready:
            print(f"  {contender.name:<12} {contender.label}")
        for note in notes:
            print(f"  note: {note}")

        print("whoami as wrk saw it in the warm-up (discarded), first answer of each:")
        for contender in ready:
            warm = wrk_run(wrk, contender, max(connections), args.warmup, args.threads, work)
            print(
                f"  {contender.name:<12} {warm.detail['sample_ok'][:150]!r}"
                + (
                    ""
                    if warm.clean
                    else f"  <- ERRORS in warm-up: {warm.detail['sample_error'][:150]!r}"
                )
            )
        runs: list[Run] = []
        for round_number in range(1, args.rounds + 1):
            for conns in connections:
                print(f"round {round_number}, {conns} connections")
                shift = (round_number - 1) % len(
                    ready
                )  # rotate who goes first, so no one always follows the same
                for contender in ready[shift:] + ready[:shift]:
                    run = wrk_run(
                        wrk,
                        contender,
                        conns,
                        args.seconds,
                        args.threads,
                        work,
                        round_number=round_number,
                    )
                    runs.append(run)
                    print(f"  {contender.name:<12} {run_line(run)}", flush=True)
                    time.sleep(0.5)
    finally:
        for contender in contenders:
            contender.stop()

    print("\nMedians over clean runs (a run with any error is left out and counted here)")
    print(
        f"{'connections':>11}  {'contender':<12} {'req/s':>9} {'p50 ms':>9} {'p99 ms':>9}  clean/runs"
    )
    medians: dict[tuple[str, int], float | None] = {}
    for conns in connections:
        for contender in ready:
            mine = [r for r in runs if r.contender == contender.name and r.connections == conns]
            clean = [r for r in mine if r.clean]
            medians[(contender.name, conns)] = median_or_none([r.rps for r in clean])
            rps = fmt(median_or_none([r.rps for r in clean]), 1)
            p50 = fmt(median_or_none([r.p50_ms for r in clean]), 2)
            p99 = fmt(median_or_none([r.p99_ms for r in clean]), 2)
            print(
                f"{conns:>11}  {contender.name:<12} {rps:>9} {p50:>9} {p99:>9}"
                f"  {len(clean)}/{len(mine)}"
            )
    present = {c.name for c in ready}
    print("\nRatios per round (full / peer, req/s)")
    for round_number in range(1, args.rounds + 1):
        parts = []
        for conns in connections:
            by = {
                r.contender: r for r in runs if r.round == round_number and r.connections == conns
            }
            for peer, label in RATIO_PEERS:
                if peer in by and "full" in by:
                    both_clean = by[peer].clean and by["full"].clean
                    parts.append(
                        f"full/{label} {conns} = "
                        + (f"{by['full'].rps / by[peer].rps:.3f}" if both_clean else "errors")
                    )
        print(f"round {round_number}: " + ", ".join(parts))
    print()
    for peer, label in RATIO_PEERS:
        if peer not in present and peer not in (
            "bare",
            "fastmcp",
        ):  # those two lines are always printed
            continue
        for conns in connections:
            full_rps, peer_rps = medians.get(("full", conns)), medians.get((peer, conns))
            value = (
                f"{full_rps / peer_rps:.3f}"
                if full_rps and peer_rps
                else "n/a (not measured)"
                if peer not in present
                else "n/a (no clean run)"
            )
            print(f"ratio full/{label} throughput {conns} = {value}")
