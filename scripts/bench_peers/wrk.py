"""wrk, the load generator: installed when missing, run against a contender with its sessions and
tokens (bench_peers/mcp_whoami.lua sends the requests), its result read back as a `Run`."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench_peers.client import close_session, open_session
from bench_peers.contender import PEERS, Contender

LUA = PEERS / "mcp_whoami.lua"


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("installing wrk (Debian package) …", file=sys.stderr)
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "wrk"]):
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is still missing after apt-get install wrk")
    return found


@dataclass
class Run:
    contender: str
    connections: int
    round: int
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    detail: dict

    @property
    def clean(self) -> bool:
        return self.errors == 0


SESSIONS_PER_CALLER = 50


def wrk_run(
    wrk: str,
    contender: Contender,
    connections: int,
    seconds: float,
    threads: int,
    work: Path,
    tokens: list[str] | None = None,
    round_number: int = 0,
    offset: int = 0,
    paired: list[str] | None = None,
    method: str = "call",
) -> Run:
    """One wrk run against fresh sessions, one per connection up to SESSIONS_PER_CALLER, closed afterwards.

    Requests take sessions and tokens in turn, starting at `offset` in the token list. `paired`: one
    session per token, opened by that token (a session belongs to the caller that opened it), kept open
    by the caller; the i-th request then uses the i-th token with its own session."""
    tokens = tokens if tokens is not None else ([contender.token] if contender.token else [])
    first = tokens[0] if tokens else None
    owned = paired is None and not contender.stateless
    # one caller holds at most 64 handshake-era sessions in Parley (server/http/session_quota.py): beyond
    # SESSIONS_PER_CALLER, connections share sessions in turn, for every contender alike
    sessions = (
        paired
        if paired is not None
        else (
            [
                open_session(contender.port, first)
                for _ in range(min(connections, SESSIONS_PER_CALLER))
            ]
            if owned
            else []
        )
    )
    sessions_file, tokens_file = work / "sessions.txt", work / "tokens.txt"
    sessions_file.write_text("".join(f"{s}\n" for s in sessions if s))
    tokens_file.write_text("".join(f"{t}\n" for t in tokens))
    threads = max(1, min(threads, connections))
    command = [
        wrk,
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{max(1, round(seconds))}s",
        "--latency",
        "--timeout",
        "5s",
        "-s",
        str(LUA),
        contender.url,
        "--",
        str(sessions_file),
        str(tokens_file),
        str(threads),
        str(offset),
        method,
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    finally:
        for session in sessions if owned else []:
            close_session(contender.port, session, first)
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCHJSON ")), None)
    if line is None:
        raise RuntimeError(
            f"wrk printed no result ({done.returncode}): {done.stdout[-500:]} {done.stderr[-500:]}"
        )
    data = json.loads(line[len("BENCHJSON ") :])
    errors = (
        data["status_errors"]
        + data["rpc_errors"]
        + data["connect_errors"]
        + data["read_errors"]
        + data["write_errors"]
        + data["timeouts"]
    )
    return Run(
        contender.name,
        connections,
        round_number,
        data["requests"] / (data["duration_us"] / 1e6),
        data["p50_us"] / 1000,
        data["p99_us"] / 1000,
        errors,
        data,
    )


def run_line(run: Run) -> str:
    text = f"{run.rps:9.1f} req/s   p50 {run.p50_ms:8.2f} ms   p99 {run.p99_ms:8.2f} ms   errors {run.errors}"
    if not run.clean:
        d = run.detail
        text += (
            f"   <- ERRORS (http {d['status_errors']}, json-rpc {d['rpc_errors']}, socket "
            f"{d['connect_errors']}/{d['read_errors']}/{d['write_errors']}, timeouts {d['timeouts']}): "
            f"{d['sample_error'][:160]!r}"
        )
    return text


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"
