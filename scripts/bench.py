"""Benchmark: Parley's whole chain against a bare MCP SDK server serving the same tools, no auth.

Both run under uvicorn on 127.0.0.1 in their own processes, in one run, measured in alternating
rounds so machine noise lands on both; the figure that matters is the ratio between them.
Usage: scripts/bench [--requests N] [--rounds R] [--turn T]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# --- the two servers -------------------------------------------------------------------------


def serve_bare(port: int, payload_file: str | None = None) -> None:
    """A bare lowlevel SDK server: the same tool definitions, no identity, no scopes, no audit.
    `whoami` answers {"lane": "guest"}, or with `payload_file` the very payload Parley answered the
    member (so the SDK serializes a result of the same size in both)."""
    import mcp_types as types
    import uvicorn
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.shared.exceptions import MCPError
    from starlette.applications import Starlette
    from starlette.routing import Route

    from server import tools
    from server.http.endpoint import session_manager
    from server.manifest.loading import load_manifest

    manifest = load_manifest()
    definitions = list(tools.definitions(manifest).values())
    payload = json.loads(Path(payload_file).read_text()) if payload_file else {"lane": "guest"}

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=definitions)

    async def call_tool(ctx, params):
        if params.name != "whoami":
            raise MCPError(code=-32602, message=f"Unknown tool: {params.name}")
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(payload))], structured_content=payload
        )

    manager = session_manager(
        Server("bare", on_list_tools=list_tools, on_call_tool=call_tool), "http://127.0.0.1"
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async with manager.run():
            yield

    app = Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))], lifespan=lifespan
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_full(port: int) -> None:
    import uvicorn

    from server.app import build
    from server.settings import Settings

    uvicorn.run(build(Settings.from_env()).app, host="127.0.0.1", port=port, log_level="warning")


# --- the client ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_up(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx2.get(url.replace("/mcp", "/nothing"), timeout=1)
            return
        except httpx2.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not start")


class Session:
    """A handshake-era MCP session over plain HTTP, so client cost is the same for both servers."""

    def __init__(self, url: str, token: str | None):
        self.url = url
        self.http = httpx2.Client(timeout=30)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        init = self.rpc(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
            keep_session=True,
        )
        assert "result" in init, init
        self.http.post(
            url,
            headers=self.headers,
            content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        self.next_id = 2

    def rpc(self, method: str, params: dict, keep_session: bool = False) -> dict:
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": getattr(self, "next_id", 1),
                "method": method,
                "params": params,
            }
        )
        self.next_id = getattr(self, "next_id", 1) + 1
        response = self.http.post(self.url, headers=self.headers, content=body)
        if keep_session:
            if "mcp-session-id" not in response.headers:
                raise RuntimeError(
                    f"{self.url} answered initialize with {response.status_code}: {response.text[:300]}"
                )
            self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        for line in response.text.splitlines():
            if line.startswith("data:"):
                return json.loads(line[5:])
        return response.json()

    def timed(self, method: str, params: dict, n: int) -> list[float]:
        samples = []
        for _ in range(n):
            started = time.perf_counter()
            reply = self.rpc(method, params)
            samples.append(time.perf_counter() - started)
            if "result" not in reply:
                raise RuntimeError(f"{method} failed: {reply}")
        return samples


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "rps": len(samples) / sum(samples),
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
    }


def bench_credentials(rounds: int, n: int) -> None:
    """µs per request to turn a credential into a caller: OAuth JWT vs agent token, same process."""
    import time as clock

    import jwt

    from server.app import build
    from server.cli import demo
    from server.identity import principals
    from server.keys.mandate import SigningKey
    from server.keys.oauth import KeyRing
    from server.manifest.loading import load_manifest
    from server.settings import Settings
    from server.store.opening import open_db

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env({"PARLEY_DB": f"{tmp}/club.db"})
        db = open_db(settings.db_path)
        tokens = demo.prepare(db, SigningKey.load_or_create(settings.keys_dir), load_manifest())
        parley = build(settings)
        agent_id, _ = principals.find_agent(db, "bruno")
        bruno = principals.find_principal(db, "bruno")
        db.insert(
            "oauth_grants",
            {
                "family": "fam_bench",
                "client_id": "bench",
                "principal_id": bruno.id,
                "agent_id": agent_id,
                "scope": "club:read",
                "resource": settings.mcp_url,
                "created_at": "2026-01-01T00:00:00.000000Z",
            },
        )
        now = int(clock.time())
        jwt_token = KeyRing(settings.keys_dir).sign(
            {
                "iss": settings.issuer,
                "sub": f"agent:{agent_id}",
                "aud": settings.mcp_url,
                "sid": "fam_bench",
                "scope": " ".join(sorted(parley.manifest.agent_scopes)),
                "iat": now,
                "nbf": now,
                "exp": now + 3600,
            }
        )
        ring = KeyRing(settings.keys_dir)
        fresh = [
            f"Bearer {ring.sign({**jwt.decode(jwt_token, options={'verify_signature': False}), 'jti': str(i)})}"
            for i in range(rounds * n)
        ]
        headers = {
            "agent token": f"Bearer {tokens.member.token}",
            "OAuth JWT": f"Bearer {jwt_token}",
        }
        resolve = parley.access.from_header
        for header in headers.values():  # warm-up, and a check that both resolve to the member lane
            assert resolve(header).lane == "member"
        samples: dict[str, list[float]] = {name: [] for name in (*headers, "OAuth JWT first use")}
        for round_number in range(rounds):
            for name, header in headers.items():
                for _ in range(n):
                    started = clock.perf_counter()
                    resolve(header)
                    samples[name].append(clock.perf_counter() - started)
            for header in fresh[
                round_number * n : (round_number + 1) * n
            ]:  # each token seen once: full ES256 verify
                started = clock.perf_counter()
                resolve(header)
                samples["OAuth JWT first use"].append(clock.perf_counter() - started)
    print(
        f"\nCredential → caller (identity, chain query, mandate check, effective scopes), in process, "
        f"{rounds} rounds x {n}"
    )
    figures = {name: summary(values) for name, values in samples.items()}
    for name, fig in figures.items():
        print(f"{name:<20} p50 {fig['p50_ms'] * 1000:8.1f} µs   p99 {fig['p99_ms'] * 1000:8.1f} µs")
    base = figures["agent token"]["p50_ms"]
    print(
        f"OAuth JWT (seen before) / agent token p50 ratio = {figures['OAuth JWT']['p50_ms'] / base:.2f}x"
    )
    print(
        f"OAuth JWT (first use)   / agent token p50 ratio = {figures['OAuth JWT first use']['p50_ms'] / base:.2f}x"
    )


def bench_router(rounds: int) -> None:
    """Plans per second on one core over the router's corpus, against a 15-tool catalogue."""
    import time as clock

    import yaml

    from server.router import Catalogue, plan
    from server.router.vocabulary import load
    from tests.router.conftest import _data, club_declarations

    declarations = club_declarations() + [d for d in _data()["store"] if d["name"] == "get_order"]
    catalogue = Catalogue.from_declarations(declarations[:15])
    vocabularies = {language: load(language) for language in ("en", "pt-BR")}
    entries = yaml.safe_load((ROOT / "tests" / "router" / "corpus.yaml").read_text())
    turns = []
    for entry in entries:
        languages = entry["l"] if isinstance(entry["l"], list) else [entry["l"]] * len(entry["t"])
        turns += [
            (turn, language, entry.get("x"))
            for turn, language in zip(entry["t"], languages, strict=True)
        ]
    for turn, language, context in turns:  # warm-up
        plan(turn, catalogue, language, vocabularies[language], context)
    samples = []
    started_all = clock.perf_counter()
    for _ in range(rounds):
        for turn, language, context in turns:
            started = clock.perf_counter()
            plan(turn, catalogue, language, vocabularies[language], context)
            samples.append(clock.perf_counter() - started)
    elapsed = clock.perf_counter() - started_all
    fig = summary(samples)
    print(
        f"\nRouter: {len(turns)} corpus turns x {rounds} rounds"
        f" against a {len(catalogue.tools)}-tool catalogue, one core"
    )
    print(
        f"plans/s {len(samples) / elapsed:,.0f}   p50 {fig['p50_ms'] * 1000:.1f} µs   p99 {fig['p99_ms'] * 1000:.1f} µs"
        f"   (targets: ≥ 5,000 plans/s, p99 < 1,000 µs)"
    )


def bench_rules(rounds: int, n: int, turn: int) -> None:
    """A call through three rules (one reading a built-in trusted attribute) against the same call with none."""
    import asyncio
    import time as clock

    from server.app import build
    from server.cli import demo
    from server.keys.mandate import SigningKey
    from server.manifest.loading import load_manifest
    from server.settings import Settings
    from server.store.opening import open_db

    rules = """
rules:
  - name: Small pages
    binding: { agent: member, tool: inbox }
    conditions: [ { field: limit, op: is at most, value: 50 } ]
  - name: At least one
    binding: { agent: member, tool: inbox }
    conditions: [ { field: limit, op: is at least, value: 1 } ]
  - name: Members only
    binding: { agent: member, tool: inbox }
    conditions: [ { field: subject.status, op: is, value: member } ]
"""
    with tempfile.TemporaryDirectory() as tmp:
        setups = {}
        for label, extra in (("no rules", ""), ("three rules", rules)):
            folder = Path(tmp) / label.replace(" ", "-")
            folder.mkdir()
            text = (ROOT / "manifests" / "club.yaml").read_text()
            text = (
                text[: text.index("\nrules:")]
                + "\n"
                + extra
                + text[text.index("\n# One agent per audience.") :]
            )
            (folder / "club.yaml").write_text(text)
            shutil.copytree(ROOT / "manifests" / "knowledge", folder / "knowledge")
            settings = Settings.from_env(
                {"PARLEY_DB": str(folder / "club.db"), "PARLEY_MANIFEST": str(folder / "club.yaml")}
            )
            tokens = demo.prepare(
                open_db(settings.db_path),
                SigningKey.load_or_create(settings.keys_dir),
                load_manifest(settings.manifest_path),
            )
            parley = build(settings)
            caller = parley.access.from_header(f"Bearer {tokens.member.token}")
            assert len(parley.chokepoint.rulebook.rules_for(caller.entry_persona, "inbox")) == (
                3 if extra else 0
            )
            setups[label] = (parley, caller)

        async def run() -> dict[str, tuple[list[float], list[float]]]:
            """Both setups in one loop, in turns of `turn` calls in a new order each turn, so a burst of
            noise from a neighbour lands on both alike (as the HTTP sections take their turns)."""
            taken: dict[str, tuple[list[float], list[float]]] = {
                label: ([], []) for label in setups
            }
            for parley, caller in setups.values():
                for _ in range(200):
                    await parley.chokepoint.call(caller, "inbox", {"limit": 5})
            order = random.Random(0)
            for _ in range(0, rounds * n, turn):
                labels = list(setups)
                order.shuffle(labels)
                for label in labels:
                    parley, caller = setups[label]
                    calls, checks = taken[label]
                    for _ in range(turn):
                        started = clock.perf_counter()
                        await parley.chokepoint.call(caller, "inbox", {"limit": 5})
                        calls.append(clock.perf_counter() - started)
                        started = clock.perf_counter()
                        denial = await parley.chokepoint.rulebook.check(
                            caller, "inbox", {"limit": 5}
                        )
                        checks.append(clock.perf_counter() - started)
                        assert denial is None
            return taken

        results = asyncio.run(run())
        for parley, _ in setups.values():
            parley.db.close()
    base_call = summary(results["no rules"][0])["p50_ms"] * 1000
    rule_call = summary(results["three rules"][0])["p50_ms"] * 1000
    check = summary(results["three rules"][1])["p50_ms"] * 1000
    print(
        f"\nRules: tools/call inbox in process, {rounds * n} calls each, the two setups in turns of {turn}"
    )
    print(f"no rules     p50 {base_call:8.1f} µs")
    print(
        f"three rules  p50 {rule_call:8.1f} µs   (rule step alone p50 {check:.1f} µs = {check / 3:.1f} µs a rule)"
    )
    print(
        f"overhead {rule_call - base_call:.1f} µs a call, ratio {rule_call / base_call:.3f}x   (target: < 10 µs a rule)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--requests", type=int, default=1500, help="requests per round per operation"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--turn", type=int, default=100, help="requests a server answers before the next one's turn"
    )
    parser.add_argument("--serve", choices=["bare", "full"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--payload", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve == "bare":
        serve_bare(args.port, args.payload)
        return 0
    if args.serve == "full":
        serve_full(args.port)
        return 0

    from server.cli import demo
    from server.keys.mandate import SigningKey
    from server.manifest.loading import load_manifest
    from server.settings import Settings
    from server.store.opening import open_db

    with tempfile.TemporaryDirectory() as tmp:
        ports = {"bare": free_port(), "full": free_port()}
        env = {
            **os.environ,
            "PARLEY_DB": f"{tmp}/club.db",
            "PARLEY_PORT": str(ports["full"]),
            "PYTHONPATH": str(ROOT),
        }
        settings = Settings.from_env(env)
        tokens = demo.prepare(
            open_db(settings.db_path), SigningKey.load_or_create(settings.keys_dir), load_manifest()
        )
        # Generous budgets so the limiter is measured, never triggered.
        manifest = Path(tmp) / "club.yaml"
        manifest.write_text(
            (ROOT / "manifests" / "club.yaml")
            .read_text()
            .replace("token_requests_per_minute: 600", "token_requests_per_minute: 10000000")
        )
        shutil.copytree(ROOT / "manifests" / "knowledge", Path(tmp) / "knowledge")
        env["PARLEY_MANIFEST"] = str(manifest)
        procs = {
            name: subprocess.Popen(
                [sys.executable, __file__, "--serve", name, "--port", str(port)], env=env
            )
            for name, port in ports.items()
        }
        try:
            urls = {name: f"http://127.0.0.1:{port}/mcp" for name, port in ports.items()}
            for url in urls.values():
                wait_up(url)
            sessions = {
                "bare": Session(urls["bare"], None),
                "full": Session(urls["full"], tokens.member.token),
            }
            # a third server: bare, answering whoami with the payload Parley just gave the member
            payload = Path(tmp) / "whoami.json"
            answer = sessions["full"].rpc("tools/call", {"name": "whoami", "arguments": {}})[
                "result"
            ]
            payload.write_text(json.dumps(answer["structuredContent"]))
            ports["bare-same"] = free_port()
            procs["bare-same"] = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--serve",
                    "bare",
                    "--port",
                    str(ports["bare-same"]),
                    "--payload",
                    str(payload),
                ],
                env=env,
            )
            urls["bare-same"] = f"http://127.0.0.1:{ports['bare-same']}/mcp"
            wait_up(urls["bare-same"])
            sessions["bare-same"] = Session(urls["bare-same"], None)
            operations = {
                "tools/list": ("tools/list", {}),
                "tools/call whoami": ("tools/call", {"name": "whoami", "arguments": {}}),
            }
            results: dict[tuple[str, str], list[float]] = {}
            for session in sessions.values():  # warm-up
                for method, params in operations.values():
                    session.timed(method, params, 200)
            # Short turns, in a new order each time, so a burst of noise from a neighbour on this shared
            # machine lands on every server alike instead of on whichever one had the whole round.
            order = random.Random(0)
            for _ in range(args.rounds):
                for op, (method, params) in operations.items():
                    for start in range(0, args.requests, args.turn):
                        names = list(sessions)
                        order.shuffle(names)
                        for name in names:
                            results.setdefault((op, name), []).extend(
                                sessions[name].timed(
                                    method, params, min(args.turn, args.requests - start)
                                )
                            )
        finally:
            for proc in procs.values():
                proc.terminate()
                proc.wait(10)

    print(
        f"Parley full chain vs bare MCP SDK server, {args.rounds} rounds x {args.requests} requests in turns of "
        f"{args.turn}, servers in a new order each turn, uvicorn on 127.0.0.1, sequential client"
    )
    print(
        "(bare-same: the bare server answering whoami with the very payload Parley gives the member, so the "
        "SDK serializes a result of the same size)"
    )
    print(f"{'operation':<20} {'server':<9} {'req/s':>9} {'p50 ms':>9} {'p99 ms':>9}")
    for op in operations:
        figures = {name: summary(results[(op, name)]) for name in ("bare", "bare-same", "full")}
        for name, fig in figures.items():
            print(
                f"{op:<20} {name:<9} {fig['rps']:>9.0f} {fig['p50_ms']:>9.3f} {fig['p99_ms']:>9.3f}"
            )
        for base in ("bare", "bare-same") if op == "tools/call whoami" else ("bare",):
            ratio = figures["full"]["p50_ms"] / figures[base]["p50_ms"]
            print(
                f"{op:<20} ratio full/{base} p50 = {ratio:.3f}x   p99 = "
                f"{figures['full']['p99_ms'] / figures[base]['p99_ms']:.3f}x"
            )
    bench_credentials(args.rounds, args.requests)
    bench_router(max(3, args.rounds * 3))
    bench_rules(args.rounds, args.requests, args.turn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
