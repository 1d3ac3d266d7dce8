"""kill -9 mid-queue loses nothing: a real `parley serve` process, killed and started again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from server.cli import demo
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.store.opening import open_db
from tests.conftest import bound_socket, connect
from tests.console_helpers import ConsoleUser


class Served:
    def __init__(self, tmp: Path, port: int):
        self.env = {**os.environ, "PARLEY_DB": str(tmp / "club.db"), "PARLEY_PORT": str(port)}
        self.base = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen | None = None
        self.log = tmp / "serve.log"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "server.cli.main", "serve"],
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx2.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx2.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"parley serve did not start: {self.log.read_text()[-2000:]}")

    def kill9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


async def test_kill_9_mid_queue_loses_no_escalation_and_no_answer(tmp_path):
    sock = bound_socket()
    port = sock.getsockname()[1]
    sock.close()
    db = open_db(tmp_path / "club.db")
    tokens = demo.prepare(db, SigningKey.load_or_create(tmp_path / "keys"), load_manifest())
    db.close()
    served = Served(tmp_path, port)
    served.start()
    try:
        url = served.base + "/mcp"
        async with connect(url, tokens.member.token) as bruno:
            asked = await bruno.call_tool(
                "ask", {"member": "ana", "question": "Does Ana enjoy sailing on weekends?"}
            )
        escalation = asked.structured_content["escalation_id"]
        assert escalation is not None
        served.kill9()  # no shutdown, no flush: the process is simply gone

        served.start()
        async with ConsoleUser(served.base, "ana", tokens.passwords["ana"]) as ana:
            assert "Does Ana enjoy sailing on weekends?" in (await ana.get("/console/queue")).text
            decided = await ana.post(
                f"/console/queue/{escalation}",
                {"action": "answer", "text": "Yes, from May."},
                page="/console/queue",
            )
            assert decided.status_code == 303
        served.kill9()

        served.start()
        async with connect(url, tokens.member.token) as bruno:
            threads = (await bruno.call_tool("inbox", {})).structured_content["threads"]
        assert threads[0]["messages"][-1] == {
            **threads[0]["messages"][-1],
            "kind": "decision",
            "quoted": {"quoted": "Yes, from May.", "by": "ana"},
        }
        async with ConsoleUser(served.base, "ana", tokens.passwords["ana"]) as ana:
            queue = (await ana.get("/console/queue")).text
            assert "Nothing waits for you." in queue and "Yes, from May." in queue
    finally:
        if served.process and served.process.poll() is None:
            served.kill9()
