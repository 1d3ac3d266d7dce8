"""Split a BFCL cases file into folds by catalogue, to measure the router as on a held-out set.

A catalogue's fold is the SHA-256 of its sorted function names, modulo the number of folds: every
case of a catalogue falls in one fold, and the split does not move when the file is reordered or
the router changes. Folds listed in --untouched are written to one file, the others to another;
the router is changed while reading only the worked file and scored on the untouched one at the end.
Only counts are printed, never a case.

    .venv/bin/python scripts/router_folds.py /work/shared/bfcl/live_dev.jsonl /tmp/folds
    .venv/bin/python /work/shared/bfcl/score.py /tmp/folds/worked.jsonl
    .venv/bin/python /work/shared/bfcl/score.py /tmp/folds/untouched.jsonl   # at the end only
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

FOLDS = 5
UNTOUCHED = (3, 4)  # chosen before the router was changed; never read while changing it


def fold_of(declarations: list[dict[str, object]], folds: int = FOLDS) -> int:
    """The catalogue's fold: a hash of its function names, so the same catalogue always lands there."""
    names = "\n".join(sorted(str(d["name"]) for d in declarations))
    return int.from_bytes(hashlib.sha256(names.encode()).digest()[:8], "big") % folds


def split(
    source: Path, out: Path, untouched: tuple[int, ...], folds: int
) -> dict[str, tuple[int, int]]:
    lines = [line for line in source.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]
    fold = {
        r["key"]: fold_of(r["declarations"], folds) for r in records if r["kind"] == "catalogue"
    }
    files: dict[str, list[str]] = {"worked": [], "untouched": []}
    counts: dict[str, list[int]] = {"worked": [0, 0], "untouched": [0, 0]}
    for line, record in zip(lines, records, strict=True):
        key = record["key"] if record["kind"] == "catalogue" else record["catalogue"]
        side = "untouched" if fold[key] in untouched else "worked"
        files[side].append(line)
        counts[side][0 if record["kind"] == "catalogue" else 1] += 1
    out.mkdir(parents=True, exist_ok=True)
    for side, lines in files.items():
        (out / f"{side}.jsonl").write_text("\n".join(lines) + "\n")
    return {side: (c[0], c[1]) for side, c in counts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", type=Path)
    parser.add_argument("out", type=Path, help="folder for worked.jsonl and untouched.jsonl")
    parser.add_argument("--folds", type=int, default=FOLDS)
    parser.add_argument("--untouched", type=int, nargs="+", default=list(UNTOUCHED))
    args = parser.parse_args()
    counts = split(args.cases, args.out, tuple(args.untouched), args.folds)
    for side, (catalogues, cases) in counts.items():
        print(f"{side}: {catalogues} catalogues, {cases} cases -> {args.out / (side + '.jsonl')}")


if __name__ == "__main__":
    main()
