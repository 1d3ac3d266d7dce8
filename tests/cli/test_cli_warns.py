"""The command line warns or refuses where the console would, and its hints are true when printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from server.cli import demo
from tests.cli.test_cli import run, run_process
from tests.cluster.test_cluster import free_port


def test_mandate_sign_with_empty_topics_is_refused_and_no_topics_means_it(tmp_path):
    run(tmp_path, "init")
    run(tmp_path, "principal", "add", "dan", "--member")
    run(tmp_path, "mandate", "sign", "dan", "--topics", "music")
    refused = run(tmp_path, "mandate", "sign", "dan", "--topics", " , ", check=False)
    assert refused.returncode == 2 and "--no-topics" in refused.stderr, refused.stderr
    shown = json.loads(run(tmp_path, "mandate", "show", "dan").stdout)
    assert shown["mandate"]["topics"] == ["music"] and shown["mandate"]["version"] == 1
    run(tmp_path, "mandate", "sign", "dan", "--no-topics")
    assert json.loads(run(tmp_path, "mandate", "show", "dan").stdout)["mandate"]["topics"] == []


def test_token_mint_says_what_the_token_will_not_reach_and_why(tmp_path):
    run(tmp_path, "init")
    run(tmp_path, "principal", "add", "dan", "--member")
    bare = run(tmp_path, "token", "mint", "dan")
    assert bare.stdout.startswith("pa_")  # still minted: a script reads it from stdout
    assert "warning: it reaches no scope now" in bare.stderr
    assert "no mandate has been signed" in bare.stderr and "mandate sign dan" in bare.stderr

    run(tmp_path, "mandate", "sign", "dan", "--topics", "music", "--scopes", "club:read")
    narrow = run(tmp_path, "token", "mint", "dan")
    assert "warning: it reaches club:read now" in narrow.stderr
    assert "mandate does not grant briefing:write" in narrow.stderr

    run(tmp_path, "mandate", "sign", "dan", "--scopes", "club:read,inbox:read")
    fitting = run(tmp_path, "token", "mint", "dan", "--scopes", "club:read,inbox:read")
    assert "warning" not in fitting.stderr and "note" not in fitting.stderr


def test_doctor_on_this_machines_address_names_the_port_setting(tmp_path):
    port = free_port()  # nothing listens there
    result = run(tmp_path, "doctor", check=False, env={"PARLEY_PORT": str(port)})
    assert result.returncode == 1 and f"127.0.0.1:{port}" in result.stdout
    assert "PARLEY_PORT" in result.stdout and "--port" in result.stdout
    named = run(tmp_path, "doctor", f"http://127.0.0.1:{port}/mcp", check=False)
    assert "PARLEY_PORT" not in named.stdout  # a URL the person gave is theirs to check


class Answering(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # another server answering its own liveness path
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_serve_on_a_busy_port_says_so_in_one_line_and_never_announces(tmp_path):
    run(tmp_path, "demo")
    other = HTTPServer(("127.0.0.1", 0), Answering)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        port = other.server_address[1]
        result = run_process(tmp_path, "serve", env={"PARLEY_PORT": str(port)})
    finally:
        other.shutdown()
        other.server_close()
    assert result.returncode == 1 and "Parley serving" not in result.stdout, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"port {port}" in lines[0] and "PARLEY_PORT" in lines[0], lines


def test_demo_passwords_never_begin_with_a_dash():
    # one password in 64 began with '-' (token_urlsafe's alphabet): 3000 draws all but surely meet one
    assert not [made for made in (demo.password() for _ in range(3000)) if made.startswith("-")]


def test_demo_run_just_before_serving_leaves_the_address_to_serve(tmp_path):
    first = run(tmp_path, "demo", "--then-serve").stdout
    assert "Serve it with" not in first and "pa_" in first
    assert "Serving it next" in first and "http://" not in first
    again = run(tmp_path, "demo", "--then-serve").stdout
    assert "Serve it with" not in again and "already prepared" in again


def test_the_console_script_run_by_its_path_is_named_by_that_path(tmp_path):
    script = Path(sys.executable).parent / "parley"
    env = {
        **os.environ,
        "PARLEY_DB": str(tmp_path / "club.db"),
        "PATH": "/usr/bin:/bin",  # not on PATH: typed by its path, like .venv/bin/parley
    }
    env.pop("PARLEY_COMMAND", None)
    done = subprocess.run(
        [str(script), "demo"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert f"check with  {script} doctor --token" in done.stdout
    assert "-m server.cli.main" not in done.stdout
