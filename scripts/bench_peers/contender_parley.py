"""Parley as a contender: a demo store made with `parley demo`, served by `parley serve` through its
console script (with the peers' uvicorn settings, or as shipped), and the tools it lists to a member,
which the peers serve too."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from bench_peers.client import call, close_session, open_session
from bench_peers.contender import PARLEY, PYTHON, ROOT, Contender, free_port

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


def parse_member_token(demo_output: str) -> str:
    match = re.search(r"member lane:\s+(\S+)", demo_output)
    if not match:
        raise SystemExit(
            f"could not find the member's token in `parley demo` output:\n{demo_output}"
        )
    return match.group(1)


def prepare_store(folder: Path, manifest: Path) -> tuple[dict[str, str], str]:
    """`parley demo` into folder/club.db; the env to serve it and the member's agent token."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {
        "PARLEY_DB": str(folder / "club.db"),
        "PARLEY_KEYS": str(folder / "keys"),
        "PARLEY_MAX_SESSIONS": "50000",
        "PARLEY_MANIFEST": str(manifest),
    }
    done = subprocess.run(
        [str(PARLEY), "demo"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(folder),
    )
    if done.returncode != 0:
        raise SystemExit(f"parley demo failed: {done.stderr[-2000:]}")
    return env, parse_member_token(done.stdout)


def bench_manifest(work: Path) -> Path:
    """A copy of manifests/ whose club.yaml has rate limits so high they are never hit."""
    target = work / "manifests"
    shutil.copytree(ROOT / "manifests", target)
    club = target / "club.yaml"
    text, count = re.subn(
        r"^(\s*(?:guest|token)_requests_per_minute:)\s*\d+",
        r"\1 100000000",
        club.read_text(),
        flags=re.MULTILINE,
    )
    if count != 2:
        raise SystemExit(
            f"expected two *_requests_per_minute limits in manifests/club.yaml, found {count}"
        )
    club.write_text(text)
    return club


def parley_contender(
    name: str,
    folder: Path,
    env: dict[str, str],
    token: str,
    loop: str,
    http_impl: str,
    serve_args: tuple[str, ...] = (),
) -> Contender:
    port = free_port()
    env = {**env, "PARLEY_PORT": str(port)}
    if name == "shipped":
        argv = [str(PARLEY), "serve"]
        label = (
            f"Parley, `parley serve` as shipped: its INFO logging, uvicorn's access log, loop/http auto "
            f"(= {loop}/{http_impl} here)"
        )
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
        raise SystemExit(
            f"the demo member's token reached lane {structured.get('lane')!r}, not member"
        )
    needs = {
        name: (decl or {}).get("needs")
        for name, decl in (yaml.safe_load(manifest.read_text())["tools"]).items()
    }
    for tool in listed:
        tool["needs"] = needs.get(tool["name"])
    path = work / "tools.json"
    path.write_text(json.dumps(listed))
    return path, sorted(structured.get("effective_scopes") or [])
