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

# What a command's words may load of the package: the command line itself and the errors it raises.
ALLOWED = ("server", "server.cli", "server.errors")


def _help_of_every_command() -> dict[str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", EVERY_HELP],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def test_every_commands_help_loads_nothing_of_the_server_stack():
    found = _help_of_every_command()
    assert {"serve", "token mint", "notes approve", "rules draft", "db migrate"} <= set(
        found["asked"]
    )
    modules = found["modules"]
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
