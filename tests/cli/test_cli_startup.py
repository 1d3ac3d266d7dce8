"""`parley COMMAND --help` answers at once: the words of every command load without the server.

The imports are read in a fresh interpreter (this one has long imported the whole server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Walks every command path of the parser, asks each for its --help, then reports what was imported.
EVERY_HELP = """
import argparse, contextlib, io, json, sys
from server.cli.main import main, parser


def paths(found, words):
    chosen = [a for a in found._actions if isinstance(a, argparse._SubParsersAction)]
    yield words
    for action in chosen:
        for name, child in action.choices.items():
            yield from paths(child, [*words, name])


asked = list(paths(parser(), []))
for words in asked:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main([*words, "--help"])
        except SystemExit:
            pass
print(json.dumps({"asked": [" ".join(w) for w in asked], "modules": sorted(sys.modules)}))
"""

# One command's work, in a fresh interpreter: what it imported once it is done.
ONE_COMMAND = """
import contextlib, io, json, sys
from server.cli.main import main

with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
SERVER_STACK = {"starlette", "mcp", "uvicorn", "httpx2", "sse_starlette", "authlib"}

# What a command's words may load of the package: the command line itself and the errors it raises.
ALLOWED = ("server", "server.cli", "server.errors")


def _imported(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_every_commands_help_loads_nothing_of_the_server_stack():
    found = _imported(EVERY_HELP)
    asked, modules = found["asked"], found["modules"]
    assert isinstance(asked, list) and isinstance(modules, list)
    assert {"serve", "token mint", "notes approve", "rules draft", "db migrate"} <= set(asked)
    server = [
        m
        for m in modules
        if m.startswith("server") and m not in ALLOWED and not m.startswith("server.cli.")
    ]
    stack = [
        m
        for m in modules
        if m.split(".")[0] in {"starlette", "mcp", "uvicorn", "httpx2", "anyio", "pydantic", "cel"}
    ]
    assert server == [] and stack == [], (server, stack)


def test_a_command_that_reads_the_store_imports_no_server_stack(tmp_path):
    env = {"PARLEY_DB": str(tmp_path / "club.db")}
    assert _imported(ONE_COMMAND, "demo", env=env)["code"] == 0
    for command in (["principal", "list"], ["token", "list", "bruno"], ["mandate", "show", "ana"]):
        found = _imported(ONE_COMMAND, *command, env=env)
        modules = found["modules"]
        assert found["code"] == 0 and isinstance(modules, list)
        stack = sorted({m.split(".")[0] for m in modules} & SERVER_STACK)
        served = [m for m in modules if m.startswith(("server.web", "server.http", "server.oauth"))]
        assert stack == [] and served == [], (command, stack, served)
