"""Concurrent and scale benchmarks over HTTP: Parley side by side with its peers, under wrk.

Every contender is its own process under uvicorn on 127.0.0.1, one worker, the same uvicorn
settings (log level warning, no access log, one loop/http implementation for all), and wrk drives
`tools/call whoami` over Streamable HTTP (protocol 2025-11-25), one MCP session per connection,
in interleaved rounds so machine noise lands on all of them.

Parley is driven only through its console script (`parley demo`, `parley serve`, the PARLEY_*
variables) and over HTTP; nothing here imports the `server` package, except the two small files
the scale section runs: scripts/bench_peers/populate.py to fill a store fast, and
scripts/bench_peers/resolve_scale.py to time resolving a caller in process on that store.

Contenders (--only takes these names):
  full         Parley: `parley serve`, run through its console script with uvicorn's settings set to
               the peers' (the CLI has no flag for them, so a few lines wrap uvicorn.Config; Parley's
               own INFO logging is lowered to WARNING as well);
  shipped      Parley as `parley serve` really runs: INFO logging, uvicorn access log, loop/http auto;
  bare         a bare lowlevel MCP SDK server, the same tools, no auth (bench_peers/bare_server.py);
  fastmcp      FastMCP with equivalent auth: a SHA-256 token lookup per request, require_scopes on
               every tool (bench_peers/fastmcp_server.py), in its own venv;
  fastmcp-jwt  the same with FastMCP's JWTVerifier (ES256) instead of the lookup;
  minimcp      MiniMCP, stateless, no auth: the lower bound (bench_peers/minimcp_server.py).

The pieces live in scripts/bench_peers/, one concern a module: contender.py (a server process,
venvs), client.py (the stdlib MCP client), wrk.py (the load generator), contender_parley.py,
contender_bare.py, contender_fastmcp.py, contender_minimcp.py (one a contender), section_concurrent.py and
section_scale.py (the two sections). This file is the command line, and the names other benches use.

Usage: .venv/bin/python scripts/bench_http.py [--seconds S] [--rounds R] [--connections 32,100]
                                              [--only full,bare,...] [--scale] [--no-concurrent]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parent)
)  # bench_peers, when imported from elsewhere

# The names the other benches (bench_cluster, bench_main_job, bench_slow_asks, profile_ask) use as `http.X`.
from bench_peers.client import call, check_contender, close_session, open_session  # noqa: E402,F401
from bench_peers.contender import (  # noqa: E402,F401
    PARLEY,
    PEERS,
    PYTHON,
    ROOT,
    VENV,
    Contender,
    Skip,
    ensure_venv,
    free_port,
    loop_and_http,
    tail,
    version_in,
)
from bench_peers.contender_parley import (  # noqa: E402,F401
    PARLEY_WRAPPER,
    bench_manifest,
    parley_contender,
    parse_member_token,
    prepare_store,
    tool_specs,
)
from bench_peers.section_concurrent import ORDER, RATIO_PEERS, concurrent, peer_contenders  # noqa: E402,F401
from bench_peers.section_scale import scale  # noqa: E402
from bench_peers.wrk import (  # noqa: E402,F401
    Run,
    ensure_wrk,
    fmt,
    median_or_none,
    run_line,
    wrk_run,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", default="32,100", help="comma-separated connection counts")
    parser.add_argument(
        "--only", help=f"comma-separated contenders among {','.join(ORDER)} ('full' always runs)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="wrk threads (default 1: on 2 cores, one for wrk and one for the server under test)",
    )
    parser.add_argument(
        "--warmup", type=float, default=2, help="seconds of discarded load per contender first"
    )
    parser.add_argument("--scale", action="store_true", help="also run the scale section")
    parser.add_argument("--no-concurrent", action="store_true", help="skip the concurrent section")
    parser.add_argument("--scale-principals", type=int, default=10000)
    parser.add_argument("--scale-tokens-each", type=int, default=10)
    parser.add_argument("--scale-connections", type=int, default=1)
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary folder (logs, stores)"
    )
    args = parser.parse_args()
    if not PARLEY.exists():
        raise SystemExit(f"{PARLEY} is missing: create the venv first (scripts/bench does)")
    wrk = ensure_wrk()
    loop, http_impl, loop_why = loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-http-"))
    version = (
        subprocess.run([wrk, "--version"], capture_output=True, text=True)
        .stdout.split("[")[0]
        .strip()
    )
    print(
        f"bench_http: {version or wrk}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} "
        f"(the machine may be shared: a busy neighbour shows as noise); work folder {work}"
    )
    try:
        if not args.no_concurrent:
            concurrent(args, wrk, loop, http_impl, loop_why, work)
        if args.scale:
            scale(args, wrk, loop, http_impl, work)
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
