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

Usage: .venv/bin/python scripts/bench_http.py [--seconds S] [--rounds R] [--connections 32,100]
                                              [--only full,bare,...] [--scale] [--no-concurrent]
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
import hashlib
import http.client
import importlib.util
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEERS = Path(__file__).resolve().parent / "bench_peers"
LUA = PEERS / "mcp_whoami.lua"
VENV = ROOT / ".venv"
PARLEY = VENV / "bin" / "parley"
PYTHON = VENV / "bin" / "python"
PROTOCOL = "2025-11-25"

# The peers' own venvs, outside the work tree; the versions measured, pinned.
FASTMCP_VENV = Path("/tmp/parley-bench-fastmcp/venv")
FASTMCP_PINS = ["fastmcp==4.2.3"]  # pins its own SDK: mcp 2.3.0 when measured
MINIMCP_VENV = Path("/tmp/parley-bench-minimcp/venv")
MINIMCP_PINS = ["minimcp==0.5.2", "mcp==1.30.0"]  # minimcp 0.5.2 imports mcp.shared.version: gone in mcp 2.x

ORDER = ["full", "shipped", "bare", "bare-json", "fastmcp", "fastmcp-jwt", "minimcp"]
RATIO_PEERS = [("bare", "bare"), ("bare-json", "bare-json"), ("fastmcp", "fastmcp"), ("minimcp", "minimcp"), ("fastmcp-jwt", "fastmcp-jwt"),
               ("shipped", "shipped")]

# Runs `parley serve` through the console script with uvicorn's settings replaced by the peers'
# (bench_peers/_uvicorn.py:serve; keep the two alike).
# Patching uvicorn.Config catches uvicorn.run(...) and uvicorn.Server(Config(...)) alike.
PARLEY_WRAPPER = r"""
import logging, runpy, sys
import uvicorn.config
loop, http_impl, script = sys.argv[1], sys.argv[2], sys.argv[3]
_init = uvicorn.config.Config.__init__
def _bench_init(self, app, *args, **kwargs):
    kwargs.update(log_level="warning", access_log=False, loop=loop, http=http_impl)
    print(f"bench: uvicorn settings applied: log_level=warning access_log=False loop={loop} http={http_impl}",
          file=sys.stderr, flush=True)
    _init(self, app, *args, **kwargs)
uvicorn.config.Config.__init__ = _bench_init
_basic = logging.basicConfig
logging.basicConfig = lambda *a, **kw: _basic(*a, **{**kw, "level": logging.WARNING})
sys.argv = [script, "serve", *sys.argv[4:]]
runpy.run_path(script, run_name="__main__")
"""


class Skip(Exception):
    """A contender that cannot run here; the message says why."""


# --- tools outside Python ---------------------------------------------------------------------


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("installing wrk (Debian package) …", file=sys.stderr)
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "wrk"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is still missing after apt-get install wrk")
    return found


def ensure_venv(venv: Path, pins: list[str], log: Path) -> Path:
    """A venv with exactly these pins (installed once; reinstalled when the pins change)."""
    python = venv / "bin" / "python"
    stamp = venv / ".bench-pins"
    wanted = " ".join(pins)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(f"preparing {venv} with {wanted} …", file=sys.stderr)
    if not python.exists():
        base = getattr(sys, "_base_executable", None) or shutil.which("python3.11") or "python3"
        subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    with log.open("a") as out:
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins], stdout=out,
                              stderr=subprocess.STDOUT, timeout=900)
    if done.returncode != 0:
        lines = [line for line in log.read_text().splitlines() if "is ignored: it is neither" not in line]
        raise Skip(f"pip install {wanted} failed: {' | '.join(lines[-5:])}")
    stamp.write_text(wanted)
    return python


def version_in(python: Path, package: str) -> str:
    done = subprocess.run([str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                          capture_output=True, text=True, timeout=60)
    return done.stdout.strip() or "?"


def loop_and_http() -> tuple[str, str, str]:
    """uvloop/httptools when Parley's venv has them, else asyncio/h11; the same for every contender."""
    have_uvloop = importlib.util.find_spec("uvloop") is not None
    have_httptools = importlib.util.find_spec("httptools") is not None
    loop = "uvloop" if have_uvloop else "asyncio"
    http_impl = "httptools" if have_httptools else "h11"
    missing = [name for name, have in (("uvloop", have_uvloop), ("httptools", have_httptools)) if not have]
    why = f"{', '.join(missing)} not installed in Parley's venv" if missing else "installed in Parley's venv"
    return loop, http_impl, why


# --- processes --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Contender:
    name: str
    label: str
    port: int
    argv: list[str]
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    token: str | None = None  # the bearer token its wrk run sends; None: no Authorization header
    stateless: bool = False
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(self.argv, env={**os.environ, **self.env}, stdout=out,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=str(self.log.parent))

    def wait_up(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise Skip(f"exited with {self.proc.returncode} at start-up: {tail(self.log)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise Skip(f"not listening on {self.port} after {seconds:.0f} s: {tail(self.log)}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(line for line in text[-lines:] if "is ignored: it is neither" not in line)


# --- a minimal MCP client (stdlib only, so it costs the same against every contender) ----------


def mcp_post(port: int, message: dict, session: str | None = None, token: str | None = None,
             method: str = "POST") -> tuple[int, dict[str, str], dict | None]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": PROTOCOL}
    if session:
        headers["Mcp-Session-Id"] = session
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, "/mcp", body=json.dumps(message) if method == "POST" else None, headers=headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        answer_headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    payload = None
    for line in text.splitlines():
        if line.startswith("data:"):
            payload = json.loads(line[5:])
            break
    else:
        if text.strip().startswith("{"):
            payload = json.loads(text)
    return response.status, answer_headers, payload


def open_session(port: int, token: str | None) -> str:
    """initialize + notifications/initialized; the session id ('' for a stateless server)."""
    status, headers, reply = mcp_post(port, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench_http", "version": "1"}}},
        token=token)
    if status != 200 or not reply or "result" not in reply:
        raise RuntimeError(f"initialize answered {status}: {reply}")
    session = headers.get("mcp-session-id", "")
    status, _, _ = mcp_post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, token)
    if status not in (200, 202):
        raise RuntimeError(f"notifications/initialized answered {status}")
    return session


def close_session(port: int, session: str, token: str | None) -> None:
    if session:
        try:
            mcp_post(port, {}, session, token, method="DELETE")
        except OSError:
            pass


def call(port: int, session: str, token: str | None, method: str, params: dict) -> dict:
    status, _, reply = mcp_post(port, {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}, session, token)
    if status != 200 or not reply or "result" not in reply:
        raise RuntimeError(f"{method} answered {status}: {json.dumps(reply)[:400] if reply else None}")
    return reply["result"]


# --- wrk --------------------------------------------------------------------------------------


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


def wrk_run(wrk: str, contender: Contender, connections: int, seconds: float, threads: int, work: Path,
            tokens: list[str] | None = None, round_number: int = 0, offset: int = 0,
            paired: list[str] | None = None, method: str = "call") -> Run:
    """One wrk run against fresh sessions, one per connection up to SESSIONS_PER_CALLER, closed afterwards.

    Requests take sessions and tokens in turn, starting at `offset` in the token list. `paired`: one
    session per token, opened by that token (a session belongs to the caller that opened it), kept open
    by the caller; the i-th request then uses the i-th token with its own session."""
    tokens = tokens if tokens is not None else ([contender.token] if contender.token else [])
    first = tokens[0] if tokens else None
    owned = paired is None and not contender.stateless
    # one caller holds at most 64 handshake-era sessions in Parley (server/http/session_quota.py): beyond
    # SESSIONS_PER_CALLER, connections share sessions in turn, for every contender alike
    sessions = paired if paired is not None else (
        [open_session(contender.port, first) for _ in range(min(connections, SESSIONS_PER_CALLER))] if owned else [])
    sessions_file, tokens_file = work / "sessions.txt", work / "tokens.txt"
    sessions_file.write_text("".join(f"{s}\n" for s in sessions if s))
    tokens_file.write_text("".join(f"{t}\n" for t in tokens))
    threads = max(1, min(threads, connections))
    command = [wrk, "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(seconds))}s", "--latency", "--timeout", "5s",
               "-s", str(LUA), contender.url, "--", str(sessions_file), str(tokens_file), str(threads), str(offset), method]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    finally:
        for session in sessions if owned else []:
            close_session(contender.port, session, first)
    line = next((l for l in done.stdout.splitlines() if l.startswith("BENCHJSON ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result ({done.returncode}): {done.stdout[-500:]} {done.stderr[-500:]}")
    data = json.loads(line[len("BENCHJSON "):])
    errors = (data["status_errors"] + data["rpc_errors"] + data["connect_errors"] + data["read_errors"]
              + data["write_errors"] + data["timeouts"])
    return Run(contender.name, connections, round_number, data["requests"] / (data["duration_us"] / 1e6),
               data["p50_us"] / 1000, data["p99_us"] / 1000, errors, data)


def run_line(run: Run) -> str:
    text = f"{run.rps:9.1f} req/s   p50 {run.p50_ms:8.2f} ms   p99 {run.p99_ms:8.2f} ms   errors {run.errors}"
    if not run.clean:
        d = run.detail
        text += (f"   <- ERRORS (http {d['status_errors']}, json-rpc {d['rpc_errors']}, socket "
                 f"{d['connect_errors']}/{d['read_errors']}/{d['write_errors']}, timeouts {d['timeouts']}): "
                 f"{d['sample_error'][:160]!r}")
    return text


# --- contenders -------------------------------------------------------------------------------


def parse_member_token(demo_output: str) -> str:
    match = re.search(r"member lane:\s+(\S+)", demo_output)
    if not match:
        raise SystemExit(f"could not find the member's token in `parley demo` output:\n{demo_output}")
    return match.group(1)


def prepare_store(folder: Path, manifest: Path) -> tuple[dict[str, str], str]:
    """`parley demo` into folder/club.db; the env to serve it and the member's agent token."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {"PARLEY_DB": str(folder / "club.db"), "PARLEY_KEYS": str(folder / "keys"), "PARLEY_MAX_SESSIONS": "50000",
           "PARLEY_MANIFEST": str(manifest)}
    done = subprocess.run([str(PARLEY), "demo"], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=120, cwd=str(folder))
    if done.returncode != 0:
        raise SystemExit(f"parley demo failed: {done.stderr[-2000:]}")
    return env, parse_member_token(done.stdout)


def bench_manifest(work: Path) -> Path:
    """A copy of manifests/ whose club.yaml has rate limits so high they are never hit."""
    target = work / "manifests"
    shutil.copytree(ROOT / "manifests", target)
    club = target / "club.yaml"
    text, count = re.subn(r"^(\s*(?:guest|token)_requests_per_minute:)\s*\d+", r"\1 100000000",
                          club.read_text(), flags=re.MULTILINE)
    if count != 2:
        raise SystemExit(f"expected two *_requests_per_minute limits in manifests/club.yaml, found {count}")
    club.write_text(text)
    return club


def parley_contender(name: str, folder: Path, env: dict[str, str], token: str, loop: str, http_impl: str,
                     serve_args: tuple[str, ...] = ()) -> Contender:
    port = free_port()
    env = {**env, "PARLEY_PORT": str(port)}
    if name == "shipped":
        argv = [str(PARLEY), "serve"]
        label = (f"Parley, `parley serve` as shipped: its INFO logging, uvicorn's access log, loop/http auto "
                 f"(= {loop}/{http_impl} here)")
    else:
        argv = [str(PYTHON), "-c", PARLEY_WRAPPER, loop, http_impl, str(PARLEY), *serve_args]
        label = "Parley, `parley serve` with the peers' uvicorn settings"
    return Contender(name, label, port, argv, folder / f"{name}.log", env, token)


def tool_specs(full: Contender, manifest: Path, work: Path) -> tuple[Path, list[str]]:
    """The tools Parley lists to its member, each with the scope the manifest says it needs."""
    import yaml

    session = open_session(full.port, full.token)
    listed = call(full.port, session, full.token, "tools/list", {})["tools"]
    who = call(full.port, session, full.token, "tools/call", {"name": "whoami", "arguments": {}})
    close_session(full.port, session, full.token)
    if who.get("isError"):
        raise SystemExit(f"Parley's whoami failed for the member: {who}")
    structured = who.get("structuredContent") or json.loads(who["content"][0]["text"])
    if structured.get("lane") != "member":
        raise SystemExit(f"the demo member's token reached lane {structured.get('lane')!r}, not member")
    needs = {name: (decl or {}).get("needs") for name, decl in (yaml.safe_load(manifest.read_text())["tools"]).items()}
    for tool in listed:
        tool["needs"] = needs.get(tool["name"])
    path = work / "tools.json"
    path.write_text(json.dumps(listed))
    return path, sorted(structured.get("effective_scopes") or [])


def peer_contenders(names: set[str], tools: Path, scopes: list[str], member_token: str, loop: str,
                    http_impl: str, work: Path, notes: list[str]) -> list[Contender]:
    impl = ["--loop", loop, "--http", http_impl]
    extra = [] if (loop, http_impl) == ("asyncio", "h11") else ["uvloop", "httptools"]
    uvicorn_pin = f"uvicorn=={metadata.version('uvicorn')}"  # the same uvicorn as Parley's
    out: list[Contender] = []
    if "bare" in names:
        port = free_port()
        out.append(Contender("bare", "bare lowlevel MCP SDK server, same tools, no auth", port,
                             [str(PYTHON), str(PEERS / "bare_server.py"), "--port", str(port), "--tools", str(tools), *impl],
                             work / "bare.log"))
    if "bare-json" in names:  # the SDK with the transport settings Parley now uses: JSON answers to plain calls
        port = free_port()
        out.append(Contender("bare-json", "bare lowlevel MCP SDK server, json_response=True as Parley's, no auth",
                             port, [str(PYTHON), str(PEERS / "bare_server.py"), "--port", str(port), "--tools",
                                    str(tools), "--json", *impl], work / "bare-json.log"))
    if names & {"fastmcp", "fastmcp-jwt"}:
        try:
            python = ensure_venv(FASTMCP_VENV, [*FASTMCP_PINS, uvicorn_pin, *extra], work / "fastmcp-install.log")
            versions = f"fastmcp {version_in(python, 'fastmcp')}, mcp {version_in(python, 'mcp')}"
            if "fastmcp" in names:
                rows = {hashlib.sha256(member_token.encode()).hexdigest():
                        {"principal": "bruno", "agent": "assistant", "scopes": scopes}}
                (work / "fastmcp-tokens.json").write_text(json.dumps(rows))
                port = free_port()
                out.append(Contender(
                    "fastmcp", f"FastMCP ({versions}): SHA-256 token lookup per request, require_scopes per tool",
                    port, [str(python), str(PEERS / "fastmcp_server.py"), "--port", str(port), "--tools", str(tools),
                           "--auth", "token", "--tokens", str(work / "fastmcp-tokens.json"), *impl],
                    work / "fastmcp.log", token=member_token))
            if "fastmcp-jwt" in names:
                key_dir = work / "fastmcp-jwt"
                key_dir.mkdir()
                (key_dir / "scopes.json").write_text(json.dumps(scopes))
                port = free_port()
                out.append(Contender(
                    "fastmcp-jwt", f"FastMCP ({versions}): JWTVerifier (ES256, iss+aud), require_scopes per tool",
                    port, [str(python), str(PEERS / "fastmcp_server.py"), "--port", str(port), "--tools", str(tools),
                           "--auth", "jwt", "--key-dir", str(key_dir), *impl],
                    work / "fastmcp-jwt.log"))
        except (Skip, subprocess.SubprocessError, OSError) as exc:
            notes.append(f"FastMCP skipped: {exc}")
    if "minimcp" in names:
        try:
            python = ensure_venv(MINIMCP_VENV, [*MINIMCP_PINS, uvicorn_pin, *extra], work / "minimcp-install.log")
            versions = f"minimcp {version_in(python, 'minimcp')}, mcp {version_in(python, 'mcp')}"
            port = free_port()
            out.append(Contender("minimcp", f"MiniMCP ({versions}), stateless, no auth: the lower bound", port,
                                 [str(python), str(PEERS / "minimcp_server.py"), "--port", str(port), "--tools", str(tools),
                                  *impl], work / "minimcp.log", stateless=True))
        except (Skip, subprocess.SubprocessError, OSError) as exc:
            notes.append(f"MiniMCP skipped: {exc}")
    return out


def check_contender(contender: Contender) -> str:
    """One whoami through a fresh session, as wrk will send it; returns a short sample of the answer."""
    session = open_session(contender.port, contender.token)
    contender.stateless = not session
    try:
        result = call(contender.port, session, contender.token, "tools/call", {"name": "whoami", "arguments": {}})
    finally:
        close_session(contender.port, session, contender.token)
    if result.get("isError"):
        raise Skip(f"whoami answered a tool error: {json.dumps(result)[:300]}")
    return json.dumps(result)[:120]


# --- the concurrent section ---------------------------------------------------------------------


def median_or_none(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def concurrent(args, wrk: str, loop: str, http_impl: str, loop_why: str, work: Path) -> None:
    names = set(args.only.split(",")) if args.only else set(ORDER)
    unknown = names - set(ORDER)
    if unknown:
        raise SystemExit(f"--only: unknown contender(s) {', '.join(sorted(unknown))}; choose from {', '.join(ORDER)}")
    names.add("full")  # the tools and the member's scopes come from it, and every ratio is against it
    manifest = bench_manifest(work)
    notes: list[str] = []
    contenders: list[Contender] = []
    try:
        env, token = prepare_store(work / "full", manifest)
        full = parley_contender("full", work / "full", env, token, loop, http_impl)
        contenders.append(full)
        if "shipped" in names:  # its own copy of the store, so neither server's audit rows land in the other's
            shutil.copytree(work / "full", work / "shipped")
            shipped_env = {**env, "PARLEY_DB": str(work / "shipped" / "club.db"), "PARLEY_KEYS": str(work / "shipped" / "keys")}
            contenders.append(parley_contender("shipped", work / "shipped", shipped_env, token, loop, http_impl))
        full.start()
        full.wait_up()
        if "bench: uvicorn settings applied" not in full.log.read_text(errors="replace"):
            notes.append("WARNING: the uvicorn settings wrapper did not run for `full`: it ran with parley serve's own")
        tools, scopes = tool_specs(full, manifest, work)
        peers = peer_contenders(names, tools, scopes, token, loop, http_impl, work, notes)
        contenders += peers
        ready: list[Contender] = [full]
        for contender in contenders[1:]:
            try:
                contender.start()
                contender.wait_up()
                if contender.name == "fastmcp-jwt":
                    contender.token = (work / "fastmcp-jwt" / "token").read_text().strip()
                sample = check_contender(contender)
                ready.append(contender)
                del sample
            except (Skip, RuntimeError, OSError) as exc:
                notes.append(f"{contender.name} skipped: {exc}")
                contender.stop()
        check_contender(full)
        ready.sort(key=lambda c: ORDER.index(c.name))
        connections = [int(c) for c in args.connections.split(",")]

        print(f"\n== Concurrent: tools/call whoami under wrk {args.threads} thread(s), one MCP session per connection, "
              f"{args.seconds:g} s a run, {args.rounds} round(s) interleaved, connections {args.connections}")
        print(f"uvicorn {metadata.version('uvicorn')} for all, one worker each, log level warning, no access log, "
              f"loop {loop}, http {http_impl} ({loop_why}); 'shipped' is the exception named below")
        print("sessions: opened before each run (initialize, notifications/initialized), one per connection, "
              "each wrk thread cycling through its own slice; closed after the run")
        for contender in ready:
            print(f"  {contender.name:<12} {contender.label}")
        for note in notes:
            print(f"  note: {note}")

        print("whoami as wrk saw it in the warm-up (discarded), first answer of each:")
        for contender in ready:
            warm = wrk_run(wrk, contender, max(connections), args.warmup, args.threads, work)
            print(f"  {contender.name:<12} {warm.detail['sample_ok'][:150]!r}"
                  + ("" if warm.clean else f"  <- ERRORS in warm-up: {warm.detail['sample_error'][:150]!r}"))
        runs: list[Run] = []
        for round_number in range(1, args.rounds + 1):
            for conns in connections:
                print(f"round {round_number}, {conns} connections")
                shift = (round_number - 1) % len(ready)  # rotate who goes first, so no one always follows the same
                for contender in ready[shift:] + ready[:shift]:
                    run = wrk_run(wrk, contender, conns, args.seconds, args.threads, work, round_number=round_number)
                    runs.append(run)
                    print(f"  {contender.name:<12} {run_line(run)}", flush=True)
                    time.sleep(0.5)
    finally:
        for contender in contenders:
            contender.stop()

    print(f"\nMedians over clean runs (a run with any error is left out and counted here)")
    print(f"{'connections':>11}  {'contender':<12} {'req/s':>9} {'p50 ms':>9} {'p99 ms':>9}  clean/runs")
    medians: dict[tuple[str, int], float | None] = {}
    for conns in connections:
        for contender in ready:
            mine = [r for r in runs if r.contender == contender.name and r.connections == conns]
            clean = [r for r in mine if r.clean]
            medians[(contender.name, conns)] = median_or_none([r.rps for r in clean])
            print(f"{conns:>11}  {contender.name:<12} {fmt(median_or_none([r.rps for r in clean]), 1):>9} "
                  f"{fmt(median_or_none([r.p50_ms for r in clean]), 2):>9} {fmt(median_or_none([r.p99_ms for r in clean]), 2):>9}"
                  f"  {len(clean)}/{len(mine)}")
    present = {c.name for c in ready}
    print("\nRatios per round (full / peer, req/s)")
    for round_number in range(1, args.rounds + 1):
        parts = []
        for conns in connections:
            by = {r.contender: r for r in runs if r.round == round_number and r.connections == conns}
            for peer, label in RATIO_PEERS:
                if peer in by and "full" in by:
                    clean = by[peer].clean and by["full"].clean
                    parts.append(f"full/{label} {conns} = "
                                 + (f"{by['full'].rps / by[peer].rps:.3f}" if clean else "errors"))
        print(f"round {round_number}: " + ", ".join(parts))
    print()
    for peer, label in RATIO_PEERS:
        if peer not in present and peer not in ("bare", "fastmcp"):  # those two lines are always printed
            continue
        for conns in connections:
            full_rps, peer_rps = medians.get(("full", conns)), medians.get((peer, conns))
            value = (f"{full_rps / peer_rps:.3f}" if full_rps and peer_rps
                     else "n/a (not measured)" if peer not in present else "n/a (no clean run)")
            print(f"ratio full/{label} throughput {conns} = {value}")


# --- the scale section --------------------------------------------------------------------------


def scale(args, wrk: str, loop: str, http_impl: str, work: Path) -> None:
    manifest = (work / "manifests" / "club.yaml") if (work / "manifests").exists() else bench_manifest(work)
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
                [str(PYTHON), str(PEERS / "populate.py"), "--db", env["PARLEY_DB"], "--keys", env["PARLEY_KEYS"],
                 "--principals", str(principals), "--tokens-each", str(args.scale_tokens_each),
                 "--out", str(folder / "callers.txt"), "--first", token],
                capture_output=True, text=True, timeout=1800)
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
        for label, server in servers.items():  # callers in turn: each token with the session it opened
            with ThreadPoolExecutor(16) as pool:
                paired[label] = list(pool.map(lambda token, port=server.port: open_session(port, token),
                                              callers[label]))
        conns = args.scale_connections
        print(f"\n== Scale: tools/call whoami on `full` Parley, wrk {conns} connection(s), {args.seconds:g} s a run, "
              f"{args.rounds} round(s) interleaved")
        print(f"stores: 10 principals ({len(callers['10'])} member callers) and {args.scale_principals:,} principals "
              f"with {args.scale_tokens_each} agent tokens each ({len(callers[big]):,} member callers)")
        print("one caller: the demo member's token on every request; callers in turn: each request the next "
              "member's token (one token per principal; each run carries on where the last stopped, so the rounds "
              "walk through all of them), each over the session that token opened (Parley binds a session to "
              "the caller that opened it); Parley resolves the caller on every request. The steward and the "
              "applicant are left out: their lanes see other tools.")
        kinds = [("10", "one"), ("10", "turn"), (big, "one"), (big, "turn")]
        # Callers in turn carry on through the list from run to run (the warm-up included), so over
        # the rounds every principal is visited in order, as a steady stream of callers would be.
        cursor = {label: 0 for label in servers}
        for label in servers:
            # Warm-up: every caller once, so the rounds measure a steady stream of known callers (each
            # one's chain and mandate cached, the heap at its working size) rather than first contacts.
            while cursor[label] < len(callers[label]):
                warm = wrk_run(wrk, servers[label], conns, args.warmup, 1, work, tokens=callers[label],
                               offset=cursor[label], paired=paired[label])
                if not warm.detail["requests"]:
                    raise SystemExit(f"the {label}-principal server answered nothing in a warm-up run: "
                                     f"{tail(servers[label].log)}")
                cursor[label] += warm.detail["requests"]
        runs: dict[tuple[str, str], list[Run]] = {kind: [] for kind in kinds}
        for round_number in range(1, args.rounds + 1):
            print(f"round {round_number}")
            for label, mode in kinds:
                tokens = callers[label][:1] if mode == "one" else callers[label]
                offset = 0 if mode == "one" else cursor[label] % len(tokens)
                run = wrk_run(wrk, servers[label], conns, args.seconds, 1, work, tokens=tokens,
                              round_number=round_number, offset=offset,
                              paired=paired[label] if mode == "turn" else None)
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
    done = subprocess.run([str(PYTHON), str(PEERS / "resolve_scale.py"), "--rounds", str(args.rounds),
                           "--callers", str(work / f"scale-{big}" / "callers.txt")],
                          env={**os.environ, **envs[big]}, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"resolve_scale.py failed: {done.stderr[-2000:]}")
    resolved = json.loads(done.stdout.strip().splitlines()[-1])

    print(f"\ncallers in turn walked the {len(callers[big]):,} callers of the {big}-principal store "
          f"{cursor[big] / len(callers[big]):.2f} times ({cursor[big]:,} requests, warm-up included)")
    print("Medians over clean runs")
    med: dict[tuple[str, str], tuple[float | None, float | None]] = {}
    for kind, mine in runs.items():
        clean = [r for r in mine if r.clean]
        med[kind] = (median_or_none([r.p50_ms for r in clean]), median_or_none([r.p99_ms for r in clean]))
        name = f"{kind[0]} principals, {'one caller' if kind[1] == 'one' else 'callers in turn'}"
        print(f"  {name:<34} {fmt(median_or_none([r.rps for r in clean]), 1):>9} req/s   p50 {fmt(med[kind][0], 2)} ms"
              f"   p99 {fmt(med[kind][1], 2)} ms   clean {len(clean)}/{len(mine)}")

    def ratio(a: tuple[str, str], b: tuple[str, str], index: int) -> str:
        top, bottom = med[a][index], med[b][index]
        return f"{top / bottom:.3f}" if top and bottom else "n/a"

    small = "10"
    print(f"ratio callers-in-turn/one-caller p50 = {ratio((big, 'turn'), (big, 'one'), 0)} "
          f"p99 = {ratio((big, 'turn'), (big, 'one'), 1)}")
    print(f"ratio {args.scale_principals}/10 principals one-caller p50 = {ratio((big, 'one'), (small, 'one'), 0)} "
          f"p99 = {ratio((big, 'one'), (small, 'one'), 1)}")
    print(f"ratio {args.scale_principals}/10 principals callers-in-turn p50 = {ratio((big, 'turn'), (small, 'turn'), 0)} "
          f"p99 = {ratio((big, 'turn'), (small, 'turn'), 1)}")
    one, turn = resolved["one"], resolved["turn"]
    print(f"\nResolve a caller in process (Access.from_header: the token's digest, the store's revision, the cached "
          f"chain, mandate and caller), {args.scale_principals:,}-principal store, heap kept as `parley serve` keeps "
          f"it, {one['n']:,} resolutions each way in shuffled turns (callers in turn walked the "
          f"{resolved['callers']:,} callers {resolved['walked']} times; full collections: {resolved['full_passes']})")
    print(f"  one caller        p50 {one['p50_us']:6.2f} µs   p99 {one['p99_us']:6.2f} µs")
    print(f"  callers in turn   p50 {turn['p50_us']:6.2f} µs   p99 {turn['p99_us']:6.2f} µs")
    print(f"ratio resolve callers-in-turn/one-caller p50 = {turn['p50_us'] / one['p50_us']:.3f} "
          f"p99 = {turn['p99_us'] / one['p99_us']:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", default="32,100", help="comma-separated connection counts")
    parser.add_argument("--only", help=f"comma-separated contenders among {','.join(ORDER)} ('full' always runs)")
    parser.add_argument("--threads", type=int, default=1,
                        help="wrk threads (default 1: on 2 cores, one for wrk and one for the server under test)")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of discarded load per contender first")
    parser.add_argument("--scale", action="store_true", help="also run the scale section")
    parser.add_argument("--no-concurrent", action="store_true", help="skip the concurrent section")
    parser.add_argument("--scale-principals", type=int, default=10000)
    parser.add_argument("--scale-tokens-each", type=int, default=10)
    parser.add_argument("--scale-connections", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, stores)")
    args = parser.parse_args()
    if not PARLEY.exists():
        raise SystemExit(f"{PARLEY} is missing: create the venv first (scripts/bench does)")
    wrk = ensure_wrk()
    loop, http_impl, loop_why = loop_and_http()
    work = Path(tempfile.mkdtemp(prefix="parley-bench-http-"))
    version = subprocess.run([wrk, "--version"], capture_output=True, text=True).stdout.split("[")[0].strip()
    print(f"bench_http: {version or wrk}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} "
          f"(the machine may be shared: a busy neighbour shows as noise); work folder {work}")
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
