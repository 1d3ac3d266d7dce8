"""Shared fixtures: a real Parley under real uvicorn on 127.0.0.1, with a real SQLite file in tmp, or a
real PostgreSQL database of its own for the modules that run against both backends."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.app import Parley, build
from server.cli import demo
from server.cluster.keyfolder import cluster_record, init_keys
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.manifest.schema import Manifest
from server.settings import Settings
from server.store.database import Database
from server.store.migrations import migrate
from server.store.opening import open_db
from tests.pg_cluster import PostgresCluster


def manifest_copy(folder: Path, edit=lambda text: text) -> Path:
    """The default manifest, edited, written into `folder` with the knowledge files it names."""
    import shutil

    from server.manifest.loading import default_manifest_path

    DEFAULT_MANIFEST = default_manifest_path()

    target = folder / "club.yaml"
    target.write_text(edit(DEFAULT_MANIFEST.read_text()))
    shutil.copytree(DEFAULT_MANIFEST.parent / "knowledge", folder / "knowledge", dirs_exist_ok=True)
    return target


# Modules whose tests run against both stores (with the `club` or `fresh_store` fixtures).
BOTH_BACKENDS = {
    "test_identity",
    "test_e2e_lanes",
    "test_e2e_ask",
    "test_e2e_credentials",
    "test_e2e_tools",
    "test_e2e_live_changes",
    "test_oauth_flow",
    "test_oauth_rejections",
    "test_promises_mandates",
    "test_store_backends",
    "test_e2e_grounded",
    "test_edge",
    "test_console_rules",
    "test_members",
    "test_teaching",
    "test_note_revisions",
    "test_e2e_quoted",
}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if (
        "backend" in metafunc.fixturenames
        and metafunc.module.__name__.rsplit(".", 1)[-1] in BOTH_BACKENDS
    ):
        metafunc.parametrize("backend", ["sqlite", "postgresql"])


@pytest.fixture
def backend() -> str:
    """The store a test runs against; modules in BOTH_BACKENDS run every test on each."""
    return "sqlite"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def store_env(backend: str, request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """What points Parley at a fresh store of the test's backend: nothing for SQLite (PARLEY_DB in the
    test's folder), a new database of the throwaway PostgreSQL otherwise."""
    if backend == "sqlite":
        yield {}
        return
    cluster: PostgresCluster = request.getfixturevalue("postgres")
    url = cluster.new_database()
    env = {"PARLEY_DATABASE_URL": url}
    if request.node.get_closest_marker("stateful_sessions"):
        env["PARLEY_SESSIONS"] = (
            "stateful"  # one process on PostgreSQL, pushing to handshake-era sessions
        )
    try:
        yield env
    finally:
        cluster.drop(url)


def prepare_store(settings: Settings) -> Database:
    """Open the settings' store; on PostgreSQL, with the keys folder made and the schema migrated."""
    db = open_db(settings.store)
    if settings.shared_store:
        init_keys(settings.keys_dir)
        migrate(db, cluster_record(settings.keys_dir, settings.manifest_path))
    return db


@pytest.fixture
def fresh_store(tmp_path: Path, store_env: dict[str, str]) -> Iterator[Database]:
    """An empty club store of the test's backend, keys in tmp_path/keys."""
    db = prepare_store(make_settings(tmp_path, env=store_env))
    try:
        yield db
    finally:
        db.close()


@pytest.fixture
def demo_minted(
    tmp_path: Path, fresh_store: Database
) -> tuple[Database, SigningKey, Manifest, demo.DemoTokens]:
    """The demo club in a fresh store of the test's backend, with its signing key, manifest and the
    demo's tokens."""
    key = SigningKey.load_or_create(tmp_path / "keys")
    manifest = load_manifest()
    minted = demo.prepare(fresh_store, key, manifest)
    assert minted is not None  # a fresh store has no principals yet
    return fresh_store, key, manifest, minted


@pytest.fixture
def demo_world(
    demo_minted: tuple[Database, SigningKey, Manifest, demo.DemoTokens],
) -> tuple[Database, SigningKey, Manifest]:
    """The demo club in a fresh store of the test's backend, with its signing key and manifest."""
    db, key, manifest, _ = demo_minted
    return db, key, manifest


def make_settings(
    tmp: Path, port: int = 0, manifest: Path | None = None, env: dict | None = None
) -> Settings:
    values = {"PARLEY_DB": str(tmp / "club.db"), "PARLEY_PORT": str(port or 8765), **(env or {})}
    if manifest is not None:
        values["PARLEY_MANIFEST"] = str(manifest)
    return Settings.from_env(values)


class LiveServer:
    """uvicorn serving an app in a thread, on a socket bound before the app is built."""

    def __init__(self, sock: socket.socket, parley: Parley):
        self.sock = sock
        self.parley = parley
        self.server = uvicorn.Server(uvicorn.Config(parley.app, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return self.parley.settings.mcp_url

    @property
    def base(self) -> str:
        return self.parley.settings.public_url

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        self.sock.close()


def bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


@dataclass
class Club:
    """A running server with the demo club, its tokens, and a separate store connection for the test."""

    live: LiveServer
    settings: Settings
    tokens: demo.DemoTokens
    handles: list = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.live.url

    def settled(self, timeout: float = 10.0) -> None:
        """Wait until every answered call's audit row is written: the server writes it just after the
        answer has left (server/chokepoint/audit.py), so a reader beside the server may be early."""
        trail = self.live.parley.chokepoint.audit
        deadline = time.monotonic() + timeout
        while trail.waiting:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{trail.waiting} audit row(s) still unwritten after {timeout} s"
                )
            time.sleep(0.002)

    def db(self) -> Database:
        """A store handle of the test's own (closed when the club stops), on the store as it is once
        every answered call's audit row is written."""
        self.settled()
        db = open_db(self.settings.store)
        self.handles.append(db)
        return db

    def key(self) -> SigningKey:
        return SigningKey.load_or_create(self.settings.keys_dir)

    def manifest(self):
        return load_manifest(self.settings.manifest_path)


@contextlib.contextmanager
def running_club(
    tmp: Path, manifest: Path | None = None, env: dict | None = None
) -> Iterator[Club]:
    sock = bound_socket()
    settings = make_settings(tmp, sock.getsockname()[1], manifest, env)
    db = prepare_store(settings)
    tokens = demo.prepare(
        db, SigningKey.load_or_create(settings.keys_dir), load_manifest(settings.manifest_path)
    )
    db.close()
    assert tokens is not None
    live = LiveServer(sock, build(settings))
    live.start()
    running = Club(live, settings, tokens)
    try:
        yield running
    finally:
        live.stop()
        for handle in running.handles:
            handle.close()
        live.parley.db.close()


@pytest.fixture
def club(tmp_path: Path, store_env: dict[str, str]) -> Iterator[Club]:
    with running_club(tmp_path, env=store_env) as running:
        yield running


@contextlib.asynccontextmanager
async def connect(
    url: str, token: str | None = None, mode: str = "legacy", **kwargs
) -> AsyncIterator[Client]:
    """The SDK's own client over real HTTP; `mode` is legacy (handshake) or auto (2026-07-28)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(
            streamable_http_client(url, http_client=http), mode=mode, cache=None, **kwargs
        ) as client:
            yield client


async def tool_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]
