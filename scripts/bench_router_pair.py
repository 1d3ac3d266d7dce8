"""The router's plan time against an earlier commit's, both in one process, case by case.

On a shared machine two runs of the same code differ by a third; a comparison of two checkouts run
one after the other measures the machine. This loads the router of REV (a commit of this repository)
beside the working tree's, plans every case of a BFCL file with each in turn, keeps each case's best
of N, and prints both and the ratio of their total time (plans in one process share its load).

    .venv/bin/python scripts/bench_router_pair.py REV ../shared/bfcl/live_dev.jsonl [--repeats 5]

--repeats 1 measures each turn's first plan (as score.py does); more take each case's best.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _earlier(rev: str, into: Path) -> None:
    """server/router at REV, as the package routerbase (its own imports renamed to match)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "server/router"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    package = into / "routerbase"
    (into / "server" / "router").rename(package)
    for module in package.glob("*.py"):
        module.write_text(module.read_text().replace("server.router", "routerbase"))


def _summary(times: list[float]) -> str:
    ordered = sorted(times)
    p50, p99 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.99)]
    return f"{len(ordered) / sum(ordered):,.0f} plans/s, p50 {p50 * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev")
    parser.add_argument("cases", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        _earlier(args.rev, Path(folder))
        sys.path[:0] = [folder, str(ROOT)]
        import routerbase as before  # type: ignore[import-not-found]
        from routerbase.vocabulary import parse as parse_before  # type: ignore[import-not-found]

        import server.router as now
        from server.router.vocabulary import parse as parse_now

        catalogues, cases = {}, []
        for line in args.cases.read_text().splitlines():
            record = json.loads(line)
            if record["kind"] == "catalogue":
                catalogues[record["key"]] = record["declarations"]
            else:
                cases.append(record)
        sides = [
            (before, parse_before({"language": "en"})),
            (now, parse_now({"language": "en"})),
        ]
        built = [
            {key: side.Catalogue.from_declarations(d) for key, d in catalogues.items()}
            for side, _ in sides
        ]
        best = [[float("inf")] * len(cases) for _ in sides]
        clock = time.perf_counter
        for repeat in range(args.repeats):
            for i, case in enumerate(cases):
                # each side goes first on alternate repeats: neither always plans on a warmer cache
                for s in (0, 1) if (repeat + i) % 2 == 0 else (1, 0):
                    side, vocabulary = sides[s]
                    t0 = clock()
                    side.plan(case["turn"], built[s][case["catalogue"]], "en", vocabulary)
                    best[s][i] = min(best[s][i], clock() - t0)
        print(f"{args.rev}: {_summary(best[0])}")
        print(f"working tree: {_summary(best[1])}")
        print(f"time ratio working tree / {args.rev}: {sum(best[1]) / sum(best[0]):.3f}")


if __name__ == "__main__":
    main()
