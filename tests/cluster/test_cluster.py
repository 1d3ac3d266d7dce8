"""Two real `parley serve` processes sharing one PostgreSQL and one keys folder, behind a round-robin
balancer (a client transport that sends each request to the next process): what one process, the
CLI or a crash does, the other sees."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from server.asking import Escalations
from server.asking.queue import COMMAND_LINE, Decision, Queue
from server.cli import demo
from server.identity import mandates, tokens
from server.identity import principals as club_ops
from server.identity.credentials import digest
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.settings import Settings
from server.store import oauth as oauth_rows
from server.store.database import Database
from server.store.migrations import SCHEMA_VERSION
from tests.asking.test_e2e_ask import ask
from tests.conftest import bound_socket, manifest_copy, prepare_store, tool_names
from tests.console_helpers import ConsoleUser
from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register
from tests.pg_cluster import PostgresCluster

ROOT = Path(__file__).resolve().parents[2]
GUEST_BUDGET = 30  # requests a minute for one guest address, cluster-wide (the manifest below)


def free_port() -> int:
    with bound_socket() as sock:
        return sock.getsockname()[1]


@dataclass
class Node:
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def parley(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "server.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def start_node(
    env: dict[str, str], folder: Path, name: str, port: int | None = None, *extra: str
) -> Node:
    """`parley serve` as its own process; returns once /healthz answers (or raises with its log)."""
    port = port or free_port()
    log = folder / f"{name}.log"
    handle = log.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port), *extra],
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    handle.close()
    node = Node(port, proc, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{log.read_text()}")
        try:
            if httpx2.get(node.base + "/healthz", timeout=2).status_code == 200:
                return node
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    node.stop()
    raise RuntimeError(f"{name} did not answer /healthz:\n{log.read_text()}")


@dataclass
class Cluster:
    a: Node
    b: Node
    env: dict[str, str]
    folder: Path
    settings: Settings
    tokens: demo.DemoTokens
    db: Database
    database_url: str

    @property
    def mcp(self) -> str:
        return self.a.base + "/mcp"  # the public URL: what a client believes it talks to

    def key(self) -> SigningKey:
        return SigningKey.load_or_create(self.settings.keys_dir, create=False)


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresCluster
) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("cluster")
    manifest = manifest_copy(
        folder,
        lambda text: text.replace(
            "guest_requests_per_minute: 120", f"guest_requests_per_minute: {GUEST_BUDGET}"
        ),
    )
    assert f"guest_requests_per_minute: {GUEST_BUDGET}" in manifest.read_text()
    url = postgres.new_database()
    port_a, port_b = free_port(), free_port()
    env = {
        **os.environ,
        "PARLEY_DATABASE_URL": url,
        "PARLEY_KEYS": str(folder / "keys"),
        "PARLEY_MANIFEST": str(manifest),
        "PARLEY_DB": str(folder / "never-used.db"),
        "PARLEY_PUBLIC_URL": f"http://127.0.0.1:{port_a}",
    }
    env.pop("PARLEY_SESSIONS", None)
    assert parley(env, "keys", "init").returncode == 0
    migrated = parley(env, "db", "migrate")
    assert (
        migrated.returncode == 0
        and f"schema created at version {SCHEMA_VERSION}" in migrated.stdout
    ), migrated.stderr
    settings = Settings.from_env(env)
    db = prepare_store(settings)
    minted = demo.prepare(
        db, SigningKey.load_or_create(settings.keys_dir, create=False), load_manifest(manifest)
    )
    assert minted is not None
    made = Cluster(
        start_node(env, folder, "a", port_a),
        start_node(env, folder, "b", port_b),
        env,
        folder,
        settings,
        minted,
        db,
        url,
    )
    try:
        yield made
    finally:
        made.a.stop()
        made.b.stop()  # the b of the end: a test that kills b starts it again
        db.close()
        postgres.drop(url)


class RoundRobin(httpx2.AsyncBaseTransport):
    """The balancer: each request goes to the next process in turn, whatever URL the client used."""

    def __init__(self, ports: list[int]):
        self.ports = itertools.cycle(ports)
        self.inner = httpx2.AsyncHTTPTransport()
        self.sent: list[tuple[int, int]] = []  # (port, status) of every request

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = next(self.ports)
        request.url = request.url.copy_with(port=port)
        response = await self.inner.handle_async_request(request)
        self.sent.append((port, response.status_code))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@contextlib.asynccontextmanager
async def balanced(
    cluster: Cluster,
    token: str | None,
    mode: str,
    ports: list[int] | None = None,
    url: str | None = None,
) -> AsyncIterator[tuple[Client, RoundRobin]]:
    transport = RoundRobin(ports or [cluster.a.port, cluster.b.port])
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(transport=transport, headers=headers, timeout=30) as http:
        async with Client(
            streamable_http_client(url or cluster.mcp, http_client=http), mode=mode, cache=None
        ) as client:
            yield client, transport


@contextlib.asynccontextmanager
async def direct(node: Node, token: str, mode: str = "auto") -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with Client(
            streamable_http_client(node.base + "/mcp", http_client=http), mode=mode, cache=None
        ) as client:
            yield client


def spare_token(cluster: Cluster, handle: str = "bruno") -> tokens.MintedToken:
    """A fresh agent token, so each test changes only what it owns."""
    principal = club_ops.find_principal(cluster.db, handle)
    agent_id, _ = club_ops.find_agent(cluster.db, handle)
    return tokens.mint(
        cluster.db,
        principal_id=principal.id,
        agent_id=agent_id,
        scopes={"club:read", "directory:read", "inbox:read", "questions:ask"},
    )


def sign(cluster: Cluster, handle: str, scopes: list[str]) -> None:
    """A new mandate version, signed as the CLI or another process would."""
    manifest = load_manifest(cluster.settings.manifest_path)
    mandates.sign_mandate(
        cluster.db,
        cluster.key(),
        principal_id=club_ops.find_principal(cluster.db, handle).id,
        topics=["databases"],
        reveal=["public"],
        quotable=False,
        scopes=scopes,
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
        valid_for=timedelta(days=30),
    )


async def first_event(subscription, seconds: float = 15):
    with anyio.fail_after(seconds):
        async for event in subscription:
            return event
    raise AssertionError("the stream ended without a notification")


def feed_backends(cluster: Cluster) -> list[int]:
    """The pids of the change feeds' listening connections to this cluster's database."""
    name = cluster.database_url.rsplit("/", 1)[-1]
    return [
        row[0]
        for row in cluster.db.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'parley-change-feed' AND datname = ?",
            [name],
        ).fetchall()
    ]


# --- both protocol eras across both processes ----------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*handshake.*")
async def test_both_protocol_eras_work_across_both_processes(cluster):
    # what this test reads of bruno's mandate, signed here: the module's tests share one cluster in
    # whatever order xdist hands them out, and others narrow bruno's mandate
    sign(cluster, "bruno", ["club:read", "directory:read", "inbox:read", "questions:ask"])
    for mode in ("legacy", "auto"):
        async with balanced(cluster, cluster.tokens.member.token, mode) as (client, transport):
            for _ in range(3):
                assert "search_directory" in await tool_names(client)
                who = (await client.call_tool("whoami", {})).structured_content
                assert who["lane"] == "member" and who["principal"] == "bruno"
        assert {port for port, _ in transport.sent} == {cluster.a.port, cluster.b.port}, (
            transport.sent
        )
        assert all(status < 400 for _, status in transport.sent), (mode, transport.sent)


async def test_stateful_sessions_are_pinned_to_one_process_and_answer_404_elsewhere(cluster):
    """The negative control: why several processes serve stateless."""
    env = {**cluster.env, "PARLEY_SESSIONS": "stateful"}
    c, d = start_node(env, cluster.folder, "c"), start_node(env, cluster.folder, "d")
    try:
        with pytest.raises(Exception):  # noqa: B017 - the SDK surfaces the 404 as an error of its own choosing
            async with balanced(
                cluster,
                cluster.tokens.member.token,
                "legacy",
                ports=[c.port, d.port],
                url=c.base + "/mcp",
            ) as (client, transport):
                await client.list_tools()
        assert (c.port, 200) in transport.sent and (d.port, 404) in transport.sent, transport.sent
    finally:
        c.stop()
        d.stop()


# --- changes made anywhere hold everywhere -------------------------------------------------------


async def test_a_change_through_a_or_the_cli_holds_on_b_from_its_next_request(cluster):
    minted = spare_token(cluster, "ana")
    async with direct(cluster.b, minted.token) as on_b:
        assert "search_directory" in await tool_names(on_b)
        # narrowed through A's console: the member signs a narrower mandate there
        async with ConsoleUser(cluster.a.base, "ana", cluster.tokens.passwords["ana"]) as ana:
            page = await ana.get("/console/mandate")
            assert page.status_code == 200
            response = await ana.post(
                "/console/mandate",
                {
                    "topics": "databases",
                    "reveal": ["public"],
                    "scope": ["club:read", "inbox:read"],
                    "days": "30",
                    "confirm": "yes",
                },
                page="/console/mandate",
            )
            assert response.status_code == 303, response.text
        names = await tool_names(on_b)
        assert "search_directory" not in names and "inbox" in names
        # revoked by the CLI, a third process
        revoked = parley(cluster.env, "token", "revoke", minted.public_id)
        assert revoked.returncode == 0, revoked.stderr
        with pytest.raises(MCPError):
            await on_b.list_tools()


async def test_a_listen_stream_on_b_hears_a_change_made_elsewhere_also_after_its_feed_is_killed(
    cluster,
):
    token = spare_token(cluster, "bruno").token
    async with direct(cluster.b, token) as on_b:
        async with on_b.listen(tools_list_changed=True) as subscription:
            sign(cluster, "bruno", ["club:read", "directory:read"])
            assert type(await first_event(subscription)).__name__ == "ToolsListChanged"
        before = set(feed_backends(cluster))
        assert len(before) == 2, before  # one listening connection a process
        killed = cluster.db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(?)",
            [list(before)],
        ).fetchall()
        assert killed and all(row[0] for row in killed)
        with anyio.fail_after(20):
            while not (set(feed_backends(cluster)) - before) or len(feed_backends(cluster)) < 2:
                await anyio.sleep(0.1)  # both processes listen again, on new connections
        async with on_b.listen(tools_list_changed=True) as subscription:
            sign(cluster, "bruno", ["club:read", "directory:read", "inbox:read", "questions:ask"])
            assert type(await first_event(subscription)).__name__ == "ToolsListChanged"
        assert "inbox" in await tool_names(on_b)


async def test_an_inbox_decision_made_on_a_or_in_the_cli_reaches_a_listener_on_b(cluster):
    token = spare_token(cluster, "bruno").token
    async with direct(cluster.b, token) as bruno:
        first = await ask(bruno, "ana", "What is Ana's favourite fruit?")
        second = await ask(bruno, "ana", "What is Ana's favourite tree?")
        async with bruno.listen(resource_subscriptions=["parley://inbox"]) as subscription:
            async with ConsoleUser(cluster.a.base, "ana", cluster.tokens.passwords["ana"]) as ana:
                decided = await ana.post(
                    f"/console/queue/{first['escalation_id']}",
                    {"action": "answer", "text": "Figs."},
                    page="/console/queue",
                )
                assert decided.status_code in (200, 303), decided.text
            assert getattr(await first_event(subscription), "uri", None) == "parley://inbox"
        async with bruno.listen(resource_subscriptions=["parley://inbox"]) as subscription:
            escalations = Escalations(
                cluster.db, cluster.key(), load_manifest(cluster.settings.manifest_path)
            )
            ana_id = club_ops.find_principal(cluster.db, "ana").id
            Queue(escalations).decide(  # as the CLI does
                ana_id, second["escalation_id"], Decision("answer", "An olive tree."), COMMAND_LINE
            )
            assert getattr(await first_event(subscription), "uri", None) == "parley://inbox"
        inbox = (await bruno.read_resource("parley://inbox")).contents[0].text
        assert "Figs." in inbox and "An olive tree." in inbox


# --- shared state: one-time secrets, budgets, cookies, keys --------------------------------------


def grant_with_refresh_token(cluster: Cluster, client_id: str) -> str:
    """A grant family and its refresh token, as a code exchange would have stored them."""
    bruno = club_ops.find_principal(cluster.db, "bruno")
    agent_id, _ = club_ops.find_agent(cluster.db, "bruno")
    family = "fam_" + secrets.token_urlsafe(12)
    oauth_rows.add_grant_once(
        cluster.db,
        {
            "family": family,
            "client_id": client_id,
            "principal_id": bruno.id,
            "agent_id": agent_id,
            "scope": "club:read",
            "resource": cluster.mcp,
            "created_at": "2026-01-01T00:00:00.000000Z",
        },
    )
    refresh = "prt_" + secrets.token_urlsafe(32)
    now = int(time.time())
    oauth_rows.add_refresh_token(
        cluster.db,
        {
            "token_hash": digest(refresh),
            "family": family,
            "client_id": client_id,
            "scope": "club:read",
            "issued_at": now,
            "expires_at": now + 3600,
        },
    )
    return refresh


async def test_a_refresh_token_sent_to_both_processes_at_once_is_spent_once(cluster):
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, cluster.a.base)
        outcomes = []
        for _ in range(20):
            refresh = grant_with_refresh_token(cluster, client["client_id"])
            form = {
                "grant_type": "refresh_token",
                "refresh_token": refresh,
                "client_id": client["client_id"],
            }
            statuses: list[int] = []

            async def spend(
                node: Node, statuses: list[int] = statuses, form: dict[str, str] = form
            ) -> None:
                statuses.append(
                    (await http.post(node.base + "/oauth/token", data=form)).status_code
                )

            async with anyio.create_task_group() as group:
                group.start_soon(spend, cluster.a)
                group.start_soon(spend, cluster.b)
            assert sorted(statuses) in ([200, 400], [400, 400]), statuses
            outcomes.append(statuses.count(200))
        assert sum(outcomes) >= 1  # the race was real: a winner in some rounds, never two


async def test_the_guest_budget_is_the_clusters_not_each_processes(cluster):
    cluster.db.execute("DELETE FROM rate_buckets")  # what earlier tests spent
    async with httpx2.AsyncClient(timeout=30) as http:
        statuses = []
        for node in [cluster.a, cluster.b] * GUEST_BUDGET:
            response = await http.post(
                node.base + "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={
                    "accept": "application/json, text/event-stream",
                    "mcp-protocol-version": "2025-06-18",
                },
            )
            statuses.append(response.status_code)
    allowed = sum(1 for status in statuses if status != 429)
    # one budget for both: 2 x 30 requests sent in a few seconds, 30 allowed plus what refilled meanwhile
    cluster.db.execute("DELETE FROM rate_buckets")  # the next test's guest calls start afresh
    assert GUEST_BUDGET <= allowed <= GUEST_BUDGET + 3, statuses
    assert 429 in statuses[::2] and 429 in statuses[1::2]  # both processes refuse


async def test_a_console_cookie_from_a_works_on_b(cluster):
    async with ConsoleUser(cluster.a.base, "bruno", cluster.tokens.passwords["bruno"]) as bruno:
        bruno.http.base_url = httpx2.URL(cluster.b.base)
        page = await bruno.get("/console")
        assert page.status_code == 200 and "bruno" in page.text
        signed_out = await bruno.post("/signout", {})
        assert signed_out.status_code == 303
        bruno.http.base_url = httpx2.URL(cluster.a.base)
        assert (await bruno.get("/console")).status_code == 303  # ended on B, ended on A


async def test_an_oauth_token_from_a_works_on_b_and_a_key_retired_anywhere_is_refused_everywhere(
    cluster,
):
    club = SimpleNamespace(
        url=cluster.mcp, tokens=cluster.tokens, live=SimpleNamespace(base=cluster.a.base)
    )
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, cluster.a.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        issued = await redeem(
            http, cluster.a.base, client["client_id"], code, verifier, resource=cluster.mcp
        )
        assert issued.status_code == 200, issued.text
        access = issued.json()["access_token"]
    async with direct(cluster.b, access) as on_b:
        assert (await on_b.call_tool("whoami", {})).structured_content["credential"][
            "kind"
        ] == "oauth"
    old = parley(cluster.env, "oauth", "keys", "--json")
    old_kid = next(row["kid"] for row in json.loads(old.stdout) if row["signing"])
    assert parley(cluster.env, "oauth", "rotate-key").returncode == 0
    retired = parley(cluster.env, "oauth", "retire-key", old_kid)
    assert retired.returncode == 0, retired.stderr
    # a refused credential spends the guest budget of its address: what earlier tests spent is not ours
    cluster.db.execute("DELETE FROM rate_buckets")
    for node in (cluster.a, cluster.b):
        refused = httpx2.post(
            node.base + "/mcp",
            headers={"Authorization": f"Bearer {access}"},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert refused.status_code == 401, (node.port, refused.text)


def test_a_process_with_other_keys_or_another_manifest_refuses_to_start(cluster):
    other = cluster.folder / "other-keys"
    env = {**cluster.env, "PARLEY_KEYS": str(other)}
    assert parley(env, "keys", "init").returncode == 0
    with pytest.raises(RuntimeError) as refused:
        start_node(env, cluster.folder, "other-keys")
    message = str(refused.value)
    assert "the mandate-signing key, the OAuth signing keys, the console session secret" in message
    (cluster.folder / "other-manifest").mkdir()
    edited = manifest_copy(
        cluster.folder / "other-manifest",
        lambda text: text.replace(
            "guest_requests_per_minute: 120", "guest_requests_per_minute: 31"
        ),
    )
    with pytest.raises(RuntimeError) as refused:
        start_node(
            {**cluster.env, "PARLEY_MANIFEST": str(edited)}, cluster.folder, "other-manifest"
        )
    assert "the manifest" in str(refused.value) and "the mandate-signing key" not in str(
        refused.value
    )


# --- operations ----------------------------------------------------------------------------------


async def test_healthz_and_metrics_of_a_process_with_two_workers(cluster):
    node = start_node(cluster.env, cluster.folder, "workers", None, "--workers", "2")
    try:
        health = httpx2.get(node.base + "/healthz").json()
        recorded = cluster.db.execute(
            "SELECT value FROM parley_meta WHERE key = 'manifest_digest'"
        ).fetchone()[0]
        assert health["backend"] == "postgresql" and health["schema_version"] == SCHEMA_VERSION
        assert health["manifest_digest"] == recorded
        assert "postgresql://" not in json.dumps(health)  # no URL, so no credential in it
        token = spare_token(cluster, "bruno").token
        async with direct(node, token) as client:
            for _ in range(20):
                assert not (await client.call_tool("whoami", {})).is_error
        metrics = httpx2.get(node.base + "/metrics")
        assert metrics.status_code == 200 and metrics.headers["content-type"].startswith(
            "text/plain"
        )
        counts = {
            line.split(" ")[0]: float(line.split(" ")[1])
            for line in metrics.text.splitlines()
            if line and not line.startswith("#")
        }
        # added up over both workers: every call counted once, whichever worker served it
        assert counts['parley_tool_call_seconds_count{outcome="ok",tool="whoami"}'] == 20
        assert counts['parley_requests_total{lane="member",outcome="admitted"}'] >= 20
        assert token not in metrics.text
    finally:
        node.stop()


async def test_an_unreachable_store_answers_503_and_the_process_recovers(cluster, postgres):
    url = postgres.new_database()
    env = {**cluster.env, "PARLEY_DATABASE_URL": url, "PARLEY_DB_POOL": "2"}
    name = url.rsplit("/", 1)[-1]
    assert parley(env, "db", "migrate").returncode == 0
    demo_run = parley(env, "demo")
    token = next(line.split()[2] for line in demo_run.stdout.splitlines() if "member lane" in line)
    node = start_node(env, cluster.folder, "unreachable")
    ping = {
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
    try:
        assert (
            httpx2.post(node.base + "/mcp", json=ping, headers=headers, timeout=30).status_code
            == 200
        )
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        postgres.admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        )
        refused = httpx2.post(node.base + "/mcp", json=ping, headers=headers, timeout=60)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1", refused.text
        assert refused.json()["error"] == "temporarily_unavailable"
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        with anyio.fail_after(30):
            while (
                httpx2.post(node.base + "/mcp", json=ping, headers=headers, timeout=30).status_code
                != 200
            ):
                await anyio.sleep(0.2)
        assert node.proc.poll() is None
    finally:
        postgres.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        node.stop()
        postgres.drop(url)


def test_a_process_refuses_a_store_that_was_never_migrated(cluster, postgres):
    url = postgres.new_database()
    try:
        with pytest.raises(RuntimeError, match="run 'parley db migrate' first"):
            start_node({**cluster.env, "PARLEY_DATABASE_URL": url}, cluster.folder, "unmigrated")
    finally:
        postgres.drop(url)


# --- a crash -------------------------------------------------------------------------------------

ACKNOWLEDGED_BEFORE_THE_KILL = 3


async def test_kill_9_of_b_mid_request_leaves_a_with_every_committed_write_and_no_half_thread(
    cluster,
):
    """Ordered by events, not by time: b is killed once it has acknowledged a few asks, while the
    next one is in flight (it waited a fixed second, and a loaded machine once acknowledged none)."""
    token = spare_token(cluster, "bruno").token
    sign(cluster, "bruno", ["club:read", "directory:read", "inbox:read", "questions:ask"])
    acknowledged: list[int] = []
    enough = anyio.Event()

    async def keep_asking(client: Client, n: int) -> None:
        with contextlib.suppress(
            Exception
        ):  # the process dies under these calls: errors are expected
            for i in range(n):
                result = await client.call_tool(
                    "ask", {"member": "ana", "question": f"Crash question {i}?"}
                )
                if not result.is_error:
                    acknowledged.append(result.structured_content["thread_id"])
                if len(acknowledged) >= ACKNOWLEDGED_BEFORE_THE_KILL:
                    enough.set()  # the kill lands while the next ask, sent at once, is in flight

    killed = cluster.b
    try:
        with contextlib.suppress(Exception):  # closing the client fails too: its server is gone
            async with direct(killed, token) as on_b:
                async with anyio.create_task_group() as group:
                    group.start_soon(keep_asking, on_b, 200)
                    with anyio.fail_after(120):  # a bound for a broken b, not a measure of speed
                        await enough.wait()
                    killed.proc.send_signal(signal.SIGKILL)
                    killed.proc.wait(10)
    finally:
        # the module's other tests share this cluster, in whatever order xdist hands them out: b
        # serves again on its port (a test after this one once found it dead: ConnectError)
        killed.stop()
        cluster.b = start_node(cluster.env, cluster.folder, "b-after-kill", killed.port)
    assert killed.proc.returncode == -signal.SIGKILL
    assert len(acknowledged) >= ACKNOWLEDGED_BEFORE_THE_KILL
    threads = {row[0] for row in cluster.db.execute("SELECT id FROM threads").fetchall()}
    assert set(acknowledged) <= threads
    half = cluster.db.execute(
        "SELECT t.id FROM threads t WHERE NOT EXISTS (SELECT 1 FROM messages m "
        "WHERE m.thread_id = t.id AND m.kind = 'question')"
    ).fetchall()
    assert half == []
    async with direct(cluster.a, token) as on_a:
        async with on_a.listen(tools_list_changed=True) as subscription:
            sign(cluster, "bruno", ["club:read"])
            assert type(await first_event(subscription)).__name__ == "ToolsListChanged"
