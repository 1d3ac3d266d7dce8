"""Resolve a caller at scale, in process: one caller again and again vs callers in turn, on a store
that scripts/bench_peers/populate.py filled. Run by the scale section of scripts/bench_http.py with
Parley's own venv python and the store's PARLEY_* variables; prints one JSON line of figures.

This is the figure the scale target is stated in (resolve p50 and p99): the time `Access.from_header` takes to
turn an `Authorization` header into a caller (token digest, the store's revision, the cached
chain and mandate, the caller's lane and effective scopes), without the HTTP and SDK work around
it that the wrk runs also measure. The process runs as `parley serve` does: the app built by
`server.app.build`, its heap kept by `server.heap.HeapKeeper` (collected and frozen after the
warm-up, then ticked once a second between turns, as the server's keeper ticks).

Both ways take turns of --turn resolutions in a new order each turn, so a burst of noise from a
neighbour lands on both alike. Callers in turn carry on through the list from turn to turn. Each
resolution gets its header as a fresh string, as the server's requests do.

Usage: python resolve_scale.py --callers callers.txt [--rounds 3] [--per-round 20000] [--turn 100]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def fresh(header: str) -> str:
    """The header as a request brings it: a string just decoded from the bytes received, not one
    of 10,000 kept in a list since the start (that would time reading it back from memory too)."""
    return header.encode("latin-1").decode("latin-1")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--callers", required=True, help="one member token a line, the first the demo member's"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--per-round", type=int, default=20000, help="resolutions per round for each way"
    )
    parser.add_argument("--turn", type=int, default=100)
    args = parser.parse_args()

    from server.app import build
    from server.heap import HeapKeeper
    from server.settings import Settings

    headers = [f"Bearer {token}" for token in Path(args.callers).read_text().split()]
    parley = build(Settings.from_env())
    resolve = parley.access.from_header
    lanes = {
        resolve(header).lane for header in headers
    }  # warm-up: every caller once, as the wrk runs do
    if lanes != {"member"}:
        raise SystemExit(f"expected every caller in the member lane, got {sorted(lanes)}")
    keeper = HeapKeeper()
    order = random.Random(0)
    samples: dict[str, list[float]] = {"one": [], "turn": []}
    cursor = 0
    clock = time.perf_counter
    ticked = clock()
    for _ in range(args.rounds):
        for _ in range(0, args.per_round, args.turn):
            ways = ["one", "turn"]
            order.shuffle(ways)
            for way in ways:
                taken = samples[way]
                for _ in range(args.turn):
                    if way == "one":
                        header = fresh(headers[0])
                    else:
                        header = fresh(headers[cursor % len(headers)])
                        cursor += 1
                    started = clock()
                    resolve(header)
                    taken.append(clock() - started)
            if clock() - ticked >= 1.0:  # as the server's keeper, once a second
                keeper.tick()
                ticked = clock()
    figures: dict[str, object] = {
        "callers": len(headers),
        "walked": round(cursor / len(headers), 2),
        "full_passes": keeper.full_passes,
    }
    for way, taken in samples.items():
        ordered = sorted(taken)
        figures[way] = {
            "n": len(ordered),
            "p50_us": statistics.median(ordered) * 1e6,
            "p99_us": percentile(ordered, 0.99) * 1e6,
        }
    print(json.dumps(figures))
    parley.db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
