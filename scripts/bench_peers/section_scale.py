"""The scale section of the HTTP bench: `tools/call whoami` on stores of 10 and of N principals (many
agent tokens each, made by bench_peers/populate.py), one caller and callers in turn, then resolving a
caller in process on the big store (bench_peers/resolve_scale.py)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_peers.client import check_contender, open_session
from bench_peers.contender import PEERS, PYTHON, Contender, tail
from bench_peers.contender_parley import bench_manifest, parley_contender, prepare_store
from bench_peers.wrk import Run, fmt, median_or_none, run_line, wrk_run


def scale(args, wrk: str, loop: str, http_impl: str, work: Path) -> None:
    manifest = (
        (work / "manifests" / "club.yaml")
        if (work / "manifests").exists()
        else bench_manifest(work)
    )
    big = str(args.scale_principals)
    stores = {"10": 10, big: args.scale_principals}
    servers: dict[str, Contender] = {}
    callers: dict[str, list[str]] = {}
    envs: dict[str, dict[str, str]] = {}
    try:
        for label, principals in stores.items():
            folder = work / f"scale-{label}"
            env, token = prepare_store(folder, manifest)
            envs[label] = env
            started = time.perf_counter()
            done = subprocess.run(
                [
                    str(PYTHON),
                    str(PEERS / "populate.py"),
                    "--db",
                    env["PARLEY_DB"],
                    "--keys",
                    env["PARLEY_KEYS"],
                    "--principals",
                    str(principals),
                    "--tokens-each",
                    str(args.scale_tokens_each),
                    "--out",
                    str(folder / "callers.txt"),
                    "--first",
                    token,
                ],
                capture_output=True,
                text=True,
                timeout=1800,
            )
            if done.returncode != 0:
                raise SystemExit(f"populate.py failed: {done.stderr[-2000:]}")
            print(done.stderr.strip(), f"(wall {time.perf_counter() - started:.1f} s)")
            callers[label] = (folder / "callers.txt").read_text().split()
            servers[label] = parley_contender("full", folder, env, token, loop, http_impl)
            servers[label].log = folder / "scale.log"
        for server in servers.values():
            server.start()
            server.wait_up()
            check_contender(server)
        paired: dict[str, list[str]] = {}
        for (
            label,
            server,
        ) in servers.items():  # callers in turn: each token with the session it opened
            with ThreadPoolExecutor(16) as pool:
                paired[label] = list(
                    pool.map(
                        lambda token, port=server.port: open_session(port, token), callers[label]
                    )
                )
        conns = args.scale_connections
        print(
            f"\n== Scale: tools/call whoami on `full` Parley, wrk {conns} connection(s), {args.seconds:g} s a run, "
            f"{args.rounds} round(s) interleaved"
        )
        print(
            f"stores: 10 principals ({len(callers['10'])} member callers) and {args.scale_principals:,} principals "
            f"with {args.scale_tokens_each} agent tokens each ({len(callers[big]):,} member callers)"
        )
        print(
            "one caller: the demo member's token on every request; callers in turn: each request the next "
            "member's token (one token per principal; each run carries on where the last stopped, so the rounds "
            "walk through all of them), each over the session that token opened (Parley binds a session to "
            "the caller that opened it); Parley resolves the caller on every request. The steward and the "
            "applicant are left out: their lanes see other tools."
        )
        kinds = [("10", "one"), ("10", "turn"), (big, "one"), (big, "turn")]
        # Callers in turn carry on through the list from run to run (the warm-up included), so over
        # the rounds every principal is visited in order, as a steady stream of callers would be.
        cursor = {label: 0 for label in servers}
        for label in servers:
            # Warm-up: every caller once, so the rounds measure a steady stream of known callers (each
            # one's chain and mandate cached, the heap at its working size) rather than first contacts.
            while cursor[label] < len(callers[label]):
                warm = wrk_run(
                    wrk,
                    servers[label],
                    conns,
                    args.warmup,
                    1,
                    work,
                    tokens=callers[label],
                    offset=cursor[label],
                    paired=paired[label],
                )
                if not warm.detail["requests"]:
                    raise SystemExit(
                        f"the {label}-principal server answered nothing in a warm-up run: "
                        f"{tail(servers[label].log)}"
                    )
                cursor[label] += warm.detail["requests"]
        runs: dict[tuple[str, str], list[Run]] = {kind: [] for kind in kinds}
        for round_number in range(1, args.rounds + 1):
            print(f"round {round_number}")
            for label, mode in kinds:
                tokens = callers[label][:1] if mode == "one" else callers[label]
                offset = 0 if mode == "one" else cursor[label] % len(tokens)
                run = wrk_run(
                    wrk,
                    servers[label],
                    conns,
                    args.seconds,
                    1,
                    work,
                    tokens=tokens,
                    round_number=round_number,
                    offset=offset,
                    paired=paired[label] if mode == "turn" else None,
                )
                if mode == "turn":
                    cursor[label] += run.detail["requests"]
                runs[(label, mode)].append(run)
                name = f"{label} principals, {'one caller' if mode == 'one' else 'callers in turn'}"
                print(f"  {name:<34} {run_line(run)}", flush=True)
                time.sleep(0.5)
    finally:
        for server in servers.values():
            server.stop()
    # The figure the issue names: resolving a caller, in process, on the big store the server just served.
    done = subprocess.run(
        [
            str(PYTHON),
            str(PEERS / "resolve_scale.py"),
            "--rounds",
            str(args.rounds),
            "--callers",
            str(work / f"scale-{big}" / "callers.txt"),
        ],
        env={**os.environ, **envs[big]},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"resolve_scale.py failed: {done.stderr[-2000:]}")
    resolved = json.loads(done.stdout.strip().splitlines()[-1])

    print(
        f"\ncallers in turn walked the {len(callers[big]):,} callers of the {big}-principal store "
        f"{cursor[big] / len(callers[big]):.2f} times ({cursor[big]:,} requests, warm-up included)"
    )
    print("Medians over clean runs")
    med: dict[tuple[str, str], tuple[float | None, float | None]] = {}
    for kind, mine in runs.items():
        clean = [r for r in mine if r.clean]
        med[kind] = (
            median_or_none([r.p50_ms for r in clean]),
            median_or_none([r.p99_ms for r in clean]),
        )
        name = f"{kind[0]} principals, {'one caller' if kind[1] == 'one' else 'callers in turn'}"
        print(
            f"  {name:<34} {fmt(median_or_none([r.rps for r in clean]), 1):>9} req/s   p50 {fmt(med[kind][0], 2)} ms"
            f"   p99 {fmt(med[kind][1], 2)} ms   clean {len(clean)}/{len(mine)}"
        )

    def ratio(a: tuple[str, str], b: tuple[str, str], index: int) -> str:
        top, bottom = med[a][index], med[b][index]
        return f"{top / bottom:.3f}" if top and bottom else "n/a"

    small = "10"
    print(
        f"ratio callers-in-turn/one-caller p50 = {ratio((big, 'turn'), (big, 'one'), 0)} "
        f"p99 = {ratio((big, 'turn'), (big, 'one'), 1)}"
    )
    print(
        f"ratio {args.scale_principals}/10 principals one-caller p50 = {ratio((big, 'one'), (small, 'one'), 0)} "
        f"p99 = {ratio((big, 'one'), (small, 'one'), 1)}"
    )
    print(
        f"ratio {args.scale_principals}/10 principals callers-in-turn p50 = {ratio((big, 'turn'), (small, 'turn'), 0)} "
        f"p99 = {ratio((big, 'turn'), (small, 'turn'), 1)}"
    )
    one, turn = resolved["one"], resolved["turn"]
    print(
        f"\nResolve a caller in process (Access.from_header: the token's digest, the store's revision, the cached "
        f"chain, mandate and caller), {args.scale_principals:,}-principal store, heap kept as `parley serve` keeps "
        f"it, {one['n']:,} resolutions each way in shuffled turns (callers in turn walked the "
        f"{resolved['callers']:,} callers {resolved['walked']} times; full collections: {resolved['full_passes']})"
    )
    print(f"  one caller        p50 {one['p50_us']:6.2f} µs   p99 {one['p99_us']:6.2f} µs")
    print(f"  callers in turn   p50 {turn['p50_us']:6.2f} µs   p99 {turn['p99_us']:6.2f} µs")
    print(
        f"ratio resolve callers-in-turn/one-caller p50 = {turn['p50_us'] / one['p50_us']:.3f} "
        f"p99 = {turn['p99_us'] / one['p99_us']:.3f}"
    )
