"""`parley serve` as an operator runs it: its workers start on a slow machine, and the URL it prints is
answered when it is printed."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.cluster.test_cluster import ROOT, free_port, parley
from tests.conftest import connect, running_club
from tests.pg_cluster import PostgresCluster

# Loaded by every Python process started with this folder on PYTHONPATH: in the worker processes
# uvicorn spawns (their command line ends in --multiprocessing-fork), the first import of the MCP SDK
# takes SLOW_SECONDS longer, as a worker's imports do on a loaded 2-core machine (6-8 s were seen).
SLOW_SECONDS = 7
SLOW_IMPORTS = f"""
import sys
import time


class SlowFirstImport:
    done = False

    def find_spec(self, name, path=None, target=None):
        if name == "mcp" and not self.done:
            self.done = True
            time.sleep({SLOW_SECONDS})
        return None


if sys.argv[-1:] == ["--multiprocessing-fork"]:
    sys.meta_path.insert(0, SlowFirstImport())
"""


@pytest.fixture
def cluster_env(tmp_path: Path, postgres: PostgresCluster) -> Iterator[dict[str, str]]:
    """A migrated PostgreSQL store and its keys folder, as `parley serve --workers 2` needs them."""
    url = postgres.new_database()
    env = {
        **os.environ,
        "PARLEY_DATABASE_URL": url,
        "PARLEY_KEYS": str(tmp_path / "keys"),
        "PARLEY_SESSIONS": "stateless",
        "PARLEY_DB": str(tmp_path / "never-used.db"),
    }
    env.pop("PARLEY_PUBLIC_URL", None)
    assert parley(env, "keys", "init").returncode == 0
    assert parley(env, "db", "migrate").returncode == 0
    try:
        yield env
    finally:
        postgres.drop(url)


def lines_of(proc: subprocess.Popen) -> queue.Queue[str]:
    """Every line the process writes, as it writes it (read by a thread, so a test can wait on one)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_workers_that_import_slowly_start_and_the_printed_url_answers_when_printed(
    tmp_path, cluster_env
):
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "sitecustomize.py").write_text(SLOW_IMPORTS)
    port = free_port()
    env = {**cluster_env, "PYTHONPATH": str(tmp_path / "slow"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    seen: list[str] = []
    try:
        lines = lines_of(proc)
        announced = None
        while announced is None:
            try:
                line = lines.get(timeout=90)
            except queue.Empty:
                raise AssertionError(
                    "parley serve never said where it serves:\n" + "".join(seen)
                ) from None
            seen.append(line)
            assert "died" not in line, "".join(
                seen
            )  # uvicorn killed a worker that was still importing
            if "http://" in line:
                announced = line
        # printed only once a worker answers there: the first request after the line is served at once,
        # not queued in the listen backlog while the workers import (they take SLOW_SECONDS longer)
        base = re.search(r"http://[^/\s]+", announced).group(0)  # type: ignore[union-attr]
        assert httpx2.get(base + "/livez", timeout=SLOW_SECONDS - 2).status_code == 200
        assert announced.startswith(f"Parley serving MCP at http://127.0.0.1:{port}/mcp"), "".join(
            seen
        )
        # both workers come up and stay up: none is killed while it imports
        while sum("Application startup complete" in line for line in seen) < 2:
            line = lines.get(timeout=90)
            seen.append(line)
            assert "died" not in line, "".join(seen)
    finally:
        stop(proc)
    assert not any("died" in line or "Traceback" in line for line in seen), "".join(seen)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`parley serve` on an SQLite store of its own; yields its base URL once it has said where it serves."""
    env = {
        **os.environ,
        "PARLEY_DB": str(tmp_path / "club.db"),
        "PARLEY_KEYS": str(tmp_path / "keys"),
        "PYTHONUNBUFFERED": "1",
    }
    for name in ("PARLEY_DATABASE_URL", "PARLEY_PUBLIC_URL", "PARLEY_SESSIONS"):
        env.pop(name, None)
    assert parley(env, "init").returncode == 0
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    seen: list[str] = []
    try:
        lines = lines_of(proc)
        while not any(line.startswith("Parley serving MCP at") for line in seen):
            seen.append(lines.get(timeout=90))
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def raw_exchange(base: str, head: bytes) -> bytes:
    """Send a request head as raw bytes (whatever a client library would refuse to send); the answer."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        try:
            sock.sendall(head)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered and closed before the whole head was sent: the answer is still there to read
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
        return answer


@pytest.mark.parametrize(
    "head",
    [
        b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 4_000_000 + b"\r\n\r\n",
        b"GET /livez HTTP/1.1\r\nHost: x\r\n" + b"X-Many: a\r\n" * 20_000 + b"\r\n",
        b"GET /livez?" + b"q" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
)
def test_an_oversized_request_line_or_head_is_a_431_and_the_server_still_answers(served, head):
    answer = raw_exchange(served, head)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert httpx2.get(served + "/livez").status_code == 200
    # a head within the bound followed by a large body in the same read is a body, not a large head
    big_body = httpx2.post(
        served + "/mcp",
        content=b"{" + b" " * 200_000 + b"}",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
        },
    )
    assert big_body.status_code != 431


def serve_and_wait(
    env: dict[str, str], port: int, *extra: str
) -> tuple[subprocess.Popen, list[str]]:
    """`parley serve` with `extra` flags, once it has said where it serves; its output keeps being read
    into the returned list."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port), *extra],
        env={**env, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    seen: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            seen.append(line)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 90
    while not any(line.startswith("Parley serving MCP at") for line in seen):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise AssertionError("parley serve did not start:\n" + "".join(seen))
        time.sleep(0.1)
    return proc, seen


def test_with_postgresql_stopped_every_answer_is_a_quick_503_that_says_so_and_the_server_recovers(
    cluster_env, postgres
):
    env = {**cluster_env, "PARLEY_DB_POOL": "4"}
    name = env["PARLEY_DATABASE_URL"].rsplit("/", 1)[-1]
    demo_run = parley(env, "demo")
    token = next(line.split()[2] for line in demo_run.stdout.splitlines() if "member lane" in line)
    password = next(
        line.split()[1]
        for line in demo_run.stdout.splitlines()
        if line.strip().startswith("bruno ")
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}},
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }
    proc, log = serve_and_wait(env, port, "--workers", "2")
    # both workers up before the outage: a late one's start-up lines are not the outage's
    deadline = time.monotonic() + 90
    while sum("Parley application started in process" in line for line in log) < 2:
        assert time.monotonic() < deadline and proc.poll() is None, "".join(log)
        time.sleep(0.1)
    console = httpx2.Client(base_url=base, timeout=3)  # every answer below must come within 3 s
    try:
        page = console.get("/signin")
        signed_in = console.post(
            "/signin",
            data={
                "csrf": re.search(r'name="csrf" value="([^"]+)"', page.text).group(1),  # type: ignore[union-attr]
                "next": "/console",
                "handle": "bruno",
                "password": password,
            },
        )
        assert signed_in.status_code == 303, signed_in.text
        assert console.get("/readyz").status_code == 200
        assert console.post("/mcp", json=call, headers=headers).status_code == 200
        before_outage = len(log)
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres.admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        )
        answers = []
        for _ in range(10):  # both workers see the outage, each several times
            answers += [
                console.get("/readyz"),
                console.post("/mcp", json=call, headers=headers),
                console.get("/console"),
            ]
        for answer in answers:
            assert answer.status_code == 503 and answer.headers["retry-after"] == "1", answer.text
        ready = answers[0].json()
        assert ready["status"] == "unavailable" and "store" in ready["problems"], ready
        assert "unavailable" in answers[1].json()["error_description"]
        assert "cannot reach its store" in answers[2].text
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        deadline = time.monotonic() + 10  # recovered by itself within 10 s
        while console.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, console.get("/readyz").text
            time.sleep(0.2)
        for _ in range(4):
            assert console.post("/mcp", json=call, headers=headers).status_code == 200
            assert console.get("/console").status_code == 200
        time.sleep(
            1
        )  # a flap (lost again just after) or a late pool warning would be written by now
        # what uvicorn says of its own workers (a late one's "startup complete") is not the outage's
        during = [line for line in log[before_outage:] if not line.startswith("INFO: ")]
    finally:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        console.close()
        stop(proc)
    text = "".join(log)
    assert "Traceback" not in text, text
    # one line when an outage begins and one when it ends, per worker process: not one per request,
    # nor per reconnection attempt (psycopg_pool's own warnings), nor back-then-lost-again
    print(f"{len(during)} log lines from the outage to its recovery:\n{''.join(during)}")
    began = [line for line in during if "store unavailable (" in line]
    ended = [line for line in during if "store reachable again" in line]
    assert 1 <= len(began) <= 2 and 1 <= len(ended) <= 2, during
    assert len(during) == len(began) + len(ended), during


URL = re.compile(r"https?://[^\s\"'<>)`]+")


async def test_every_link_an_agent_is_given_follows_the_port_the_club_is_served_on(tmp_path):
    """Served on a free port (never 8765): the steward's instructions, every lane's instructions and the
    OAuth metadata give URLs on that port only, and each of them leads somewhere."""
    with running_club(tmp_path) as club:
        base = club.live.base
        assert not base.endswith(":8765")
        given: set[str] = set()
        for token in (
            None,
            club.tokens.applicant.token,
            club.tokens.member.token,
            club.tokens.steward_principal.token,
        ):
            async with connect(club.url, token) as client:
                given |= set(URL.findall(client.instructions or ""))
        async with httpx2.AsyncClient(timeout=30, follow_redirects=True) as http:
            for path in (
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-authorization-server",
            ):
                metadata = (await http.get(base + path)).json()
                given |= {
                    value
                    for value in metadata.values()
                    if isinstance(value, str) and "://" in value
                }
                given |= {
                    item
                    for value in metadata.values()
                    if isinstance(value, list)
                    for item in value
                    if isinstance(item, str) and "://" in item
                }
            assert (
                f"{base}/console/applicants" in given
            )  # the steward's console link, declared as a path
            for url in sorted(given):
                assert url.startswith(base), f"{url} is not on {base}"
                if url.rstrip("/").endswith("/mcp"):
                    continue  # the endpoint itself: a GET without a session is not a page
                answer = await http.get(url)
                assert answer.status_code < 400 or url.endswith(
                    ("/oauth/token", "/oauth/register", "/oauth/revoke", "/oauth/authorize")
                ), (url, answer.status_code)


def series(text: str) -> dict[str, float]:
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }


def test_metrics_are_complete_from_the_first_scrape_and_their_folder_goes_with_the_server(
    tmp_path, cluster_env
):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**cluster_env, "TMPDIR": str(scratch)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    port = free_port()
    proc, log = serve_and_wait(env, port, "--workers", "2")
    try:

        def gauges(found: dict[str, float]) -> dict[str, list[float]]:
            return {
                name: [value for key, value in found.items() if key.startswith(name + "{")]
                for name in ("parley_store_up", "parley_change_listener_connected")
            }

        # both workers have sampled themselves (every 2 s) once their change listener has connected,
        # which it does a moment after the worker starts serving
        deadline = time.monotonic() + 30
        while True:
            found = series(httpx2.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text)
            pids = {name for name in found if name.startswith("parley_process_up{")}
            settled = len(pids) == 2 and all(v == [1.0, 1.0] for v in gauges(found).values())
            if settled or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert len(pids) == 2, found  # one series per worker, labelled with its pid
        for name, values in gauges(found).items():
            assert values == [1.0, 1.0], (name, found)
        assert any(
            key.startswith("parley_store_pool_connections{") and 'state="open"' in key
            for key in found
        )
        # no request was made: every series is there already, at zero
        assert found['parley_requests_total{lane="member",outcome="admitted"}'] == 0
        assert found['parley_tool_call_seconds_count{outcome="ok",tool="whoami"}'] == 0
        assert [p.name for p in scratch.iterdir() if p.name.startswith("parley-metrics-")]
    finally:
        stop(proc)
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("parley-metrics-")], "".join(
        log
    )


def test_a_statement_on_a_pool_retired_as_the_store_came_back_is_store_unavailable(
    tmp_path, postgres
):
    """As the store returns, the first caller swaps in a fresh pool and retires the old one; a caller
    still borrowing from the old one is told the store is unavailable (retry), never a PoolClosed."""
    from server.store.database import StoreUnavailable
    from server.store.opening import open_db

    url = postgres.new_database()
    db = open_db(url)
    try:
        assert db.execute("SELECT 1").fetchone()[0] == 1
        retired = db.pool  # type: ignore[attr-defined]
        retired.close()
        with pytest.raises(StoreUnavailable, match="renewed"):
            db.execute("SELECT 1")
    finally:
        db.close()
        postgres.drop(url)


@pytest.mark.parametrize("trusted", [None, "127.0.0.1"])
def test_forwarded_addresses_are_believed_only_from_the_proxies_named(tmp_path, trusted):
    """Registrations from one host, each with another X-Forwarded-For: by default the header is not
    believed, so the per-address limit counts the host and refuses past its budget; with the host named
    as a proxy (`--forwarded-allow-ips`), each forwarded client has a budget of its own."""
    from server.oauth.pages import REGISTRATIONS_PER_MINUTE

    env = {
        **os.environ,
        "PARLEY_DB": str(tmp_path / "club.db"),
        "PARLEY_KEYS": str(tmp_path / "keys"),
    }
    for name in (
        "PARLEY_DATABASE_URL",
        "PARLEY_PUBLIC_URL",
        "PARLEY_SESSIONS",
        "FORWARDED_ALLOW_IPS",
    ):
        env.pop(name, None)
    assert parley(env, "init").returncode == 0
    port = free_port()
    extra = ("--forwarded-allow-ips", trusted) if trusted else ()
    proc, _ = serve_and_wait(env, port, *extra)
    try:
        answers = [
            httpx2.post(
                f"http://127.0.0.1:{port}/oauth/register",
                json={},
                headers={"X-Forwarded-For": f"10.{n // 250}.{n % 250}.1"},
                timeout=30,
            ).status_code
            for n in range(REGISTRATIONS_PER_MINUTE * 2)
        ]
    finally:
        stop(proc)
    if trusted:
        assert 429 not in answers
    else:
        # (the budget refills while the requests are sent: one registration every two seconds)
        assert answers.count(429) >= REGISTRATIONS_PER_MINUTE // 2
