"""`parley serve` as an operator runs it: its workers start on a slow machine, and the URL it prints is
answered when it is printed."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.pg_cluster import PostgresCluster
from tests.test_cluster import ROOT, free_port, parley

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
    env = {**os.environ, "PARLEY_DATABASE_URL": url, "PARLEY_KEYS": str(tmp_path / "keys"),
           "PARLEY_SESSIONS": "stateless", "PARLEY_DB": str(tmp_path / "never-used.db")}
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


def test_workers_that_import_slowly_start_and_the_printed_url_answers_when_printed(tmp_path, cluster_env):
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "sitecustomize.py").write_text(SLOW_IMPORTS)
    port = free_port()
    env = {**cluster_env, "PYTHONPATH": str(tmp_path / "slow"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "server.cli.main", "serve", "--port", str(port), "--workers", "2"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    seen: list[str] = []
    try:
        lines = lines_of(proc)
        announced = None
        while announced is None:
            try:
                line = lines.get(timeout=90)
            except queue.Empty:
                raise AssertionError("parley serve never said where it serves:\n" + "".join(seen)) from None
            seen.append(line)
            assert "died" not in line, "".join(seen)  # uvicorn killed a worker that was still importing
            if "http://" in line:
                announced = line
        # printed only once a worker answers there: the first request after the line is served at once,
        # not queued in the listen backlog while the workers import (they take SLOW_SECONDS longer)
        base = re.search(r"http://[^/\s]+", announced).group(0)  # type: ignore[union-attr]
        assert httpx2.get(base + "/livez", timeout=SLOW_SECONDS - 2).status_code == 200
        assert announced.startswith(f"Parley serving MCP at http://127.0.0.1:{port}/mcp"), "".join(seen)
        # both workers come up and stay up: none is killed while it imports
        while sum("Application startup complete" in line for line in seen) < 2:
            line = lines.get(timeout=90)
            seen.append(line)
            assert "died" not in line, "".join(seen)
    finally:
        stop(proc)
    assert not any("died" in line or "Traceback" in line for line in seen), "".join(seen)
