"""Round trips to PostgreSQL per `tools/call whoami`, by credential: a Parley bearer token, an OAuth
access token (from the embedded authorization server, through its own pages, as a browser would
get it) and a guest (no credential). Counted from the server's own /metrics
(`parley_store_statements_total`, every worker's added up) over sequential calls after a first, so
it counts what a request costs once its credential was seen: those made serving the requests, and
all (the background's too: the audit rows a request lets go of are written by the background
writer, in statements of their own).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench_peers.client import call, open_session  # noqa: E402

from tests.oauth_helpers import oauth_access_token  # noqa: E402 - through the real pages


def demo_password(demo_output: str, handle: str) -> str:
    """The sign-in password `parley demo` showed for `handle`."""
    match = re.search(rf"^\s+{re.escape(handle)}\s+(\S+)\s*$", demo_output, re.M)
    if not match:
        raise SystemExit(f"no password for {handle} in `parley demo` output")
    return match.group(1)


def oauth_token(port: int, handle: str, password: str) -> str:
    """An access token the server's embedded authorization server issued to `handle`'s agent."""
    base = f"http://127.0.0.1:{port}"
    with urllib.request.urlopen(f"{base}/.well-known/oauth-protected-resource/mcp") as answer:
        resource = json.loads(answer.read())["resource"]
    token: str = asyncio.run(oauth_access_token(base, resource, handle, password))["access_token"]
    return token


_SAMPLE = re.compile(
    r"^(parley_store_statements_total|parley_tool_call_seconds_count)\{([^}]*)\} (\S+)$", re.M
)


def counts(port: int) -> tuple[float, float, float]:
    """From Parley's own /metrics, every worker's added up: statements to PostgreSQL made serving
    requests, all statements (the background's too: the audit writer, the live sessions' poll, the
    health probe a scrape makes), and whoami calls answered."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    request = every = calls = 0.0
    for name, labels, value in _SAMPLE.findall(text):
        if name == "parley_store_statements_total":
            every += float(value)
            request += float(value) if 'source="request"' in labels else 0.0
        elif 'tool="whoami"' in labels:
            calls += float(value)
    return request, every, calls


def settled(port: int, seconds: float = 30.0) -> None:
    """Wait until the background is quiet (an earlier load's audit backlog written): no more than
    the scrapes' own statements in half a second."""
    deadline = time.monotonic() + seconds
    before = counts(port)[1]
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = counts(port)[1]
        if now - before <= 2:
            return
        before = now


def trips_per_whoami(port: int, token: str | None, calls: int = 100) -> tuple[float, float]:
    """Statements to PostgreSQL per whoami over `calls` sequential calls after a first, once the
    background is quiet: (made serving the requests, all of them)."""
    session = open_session(port, token)
    whoami = {"name": "whoami", "arguments": {}}
    call(port, session, token, "tools/call", whoami)
    settled(port)
    before = counts(port)
    for _ in range(calls):
        call(port, session, token, "tools/call", whoami)
    after = counts(port)
    answered = max(1.0, after[2] - before[2])
    return (after[0] - before[0]) / answered, (after[1] - before[1]) / answered


if __name__ == "__main__":  # a quick look at a running server: port [token]
    print(json.dumps(trips_per_whoami(int(sys.argv[1]), sys.argv[2] if sys.argv[2:] else None)))
