"""Round trips to PostgreSQL per `tools/call whoami`, by credential: a Parley bearer token, an OAuth
access token (from the embedded authorization server, through its own pages, as a browser would
get it) and a guest (no credential). Counted from the server's own /metrics
(`parley_store_statements_total`, every worker's added up) over sequential calls after a first, so
it counts what a request costs once its credential was seen: those made serving the requests, and
all (the background's too; the audit rows a request lets go of ride on the next one's statement,
and the last one's are written by the background writer).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
import sys
import time
import urllib.request
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench_peers.client import call, open_session  # noqa: E402

from tests.oauth_helpers import REDIRECT_URI, Browser  # noqa: E402 - the test suite's own browser


def demo_password(demo_output: str, handle: str) -> str:
    """The sign-in password `parley demo` showed for `handle`."""
    match = re.search(rf"^\s+{re.escape(handle)}\s+(\S+)\s*$", demo_output, re.M)
    if not match:
        raise SystemExit(f"no password for {handle} in `parley demo` output")
    return match.group(1)


async def _oauth_token(port: int, handle: str, password: str) -> str:
    base = f"http://127.0.0.1:{port}"
    async with httpx2.AsyncClient(timeout=30) as http:
        resource = (await http.get(base + "/.well-known/oauth-protected-resource/mcp")).json()
        client = (
            await http.post(
                base + "/oauth/register",
                json={
                    "client_name": "bench",
                    "redirect_uris": [REDIRECT_URI],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "token_endpoint_auth_method": "none",
                },
            )
        ).json()
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode()).digest()
        challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        params = {
            "response_type": "code",
            "client_id": client["client_id"],
            "redirect_uri": REDIRECT_URI,
            "state": "bench",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": resource["resource"],
        }
        url = str(httpx2.URL(base + "/oauth/authorize", params=params))
        location = await Browser(handle, password).visit(url)
        if location is None:
            raise SystemExit("the authorization server did not redirect with a code")
        code = httpx2.URL(location).params["code"]
        redeemed = await http.post(
            base + "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "client_id": client["client_id"],
                "redirect_uri": REDIRECT_URI,
                "code_verifier": verifier,
            },
        )
        token: str = redeemed.json()["access_token"]
        return token


def oauth_token(port: int, handle: str, password: str) -> str:
    """An access token the server's embedded authorization server issued to `handle`'s agent."""
    return asyncio.run(_oauth_token(port, handle, password))


_SAMPLE = re.compile(
    r"^(parley_store_statements_total|parley_tool_call_seconds_count)\{([^}]*)\} (\S+)$", re.M
)


def counts(port: int) -> tuple[float, float, float]:
    """From /metrics, every worker's added up: statements made serving requests, all statements
    (the background's too: the audit writer, the health probe a scrape makes), whoami calls."""
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
    from bench_cluster import counts

    print(
        json.dumps(
            trips_per_whoami(int(sys.argv[1]), sys.argv[2] if sys.argv[2:] else None, counts)
        )
    )
