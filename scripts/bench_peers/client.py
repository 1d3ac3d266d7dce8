"""A minimal MCP client over Streamable HTTP, stdlib only, so it costs the same against every
contender: a session opened and closed, one request answered."""

from __future__ import annotations

import http.client
import json

from bench_peers.contender import Contender, Skip

PROTOCOL = "2025-11-25"


def mcp_post(
    port: int,
    message: dict,
    session: str | None = None,
    token: str | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, str], dict | None]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL,
    }
    if session:
        headers["Mcp-Session-Id"] = session
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(
            method, "/mcp", body=json.dumps(message) if method == "POST" else None, headers=headers
        )
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        answer_headers = {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()
    payload = None
    for line in text.splitlines():
        if line.startswith("data:"):
            payload = json.loads(line[5:])
            break
    else:
        if text.strip().startswith("{"):
            payload = json.loads(text)
    return response.status, answer_headers, payload


def open_session(port: int, token: str | None) -> str:
    """initialize + notifications/initialized; the session id ('' for a stateless server)."""
    status, headers, reply = mcp_post(
        port,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench_http", "version": "1"},
            },
        },
        token=token,
    )
    if status != 200 or not reply or "result" not in reply:
        raise RuntimeError(f"initialize answered {status}: {reply}")
    session = headers.get("mcp-session-id", "")
    status, _, _ = mcp_post(
        port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session, token
    )
    if status not in (200, 202):
        raise RuntimeError(f"notifications/initialized answered {status}")
    return session


def close_session(port: int, session: str, token: str | None) -> None:
    if session:
        try:
            mcp_post(port, {}, session, token, method="DELETE")
        except OSError:
            pass


def call(port: int, session: str, token: str | None, method: str, params: dict) -> dict:
    status, _, reply = mcp_post(
        port, {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}, session, token
    )
    if status != 200 or not reply or "result" not in reply:
        raise RuntimeError(
            f"{method} answered {status}: {json.dumps(reply)[:400] if reply else None}"
        )
    return reply["result"]


def check_contender(contender: Contender) -> str:
    """One whoami through a fresh session, as wrk will send it; returns a short sample of the answer."""
    session = open_session(contender.port, contender.token)
    contender.stateless = not session
    try:
        result = call(
            contender.port,
            session,
            contender.token,
            "tools/call",
            {"name": "whoami", "arguments": {}},
        )
    finally:
        close_session(contender.port, session, contender.token)
    if result.get("isError"):
        raise Skip(f"whoami answered a tool error: {json.dumps(result)[:300]}")
    return json.dumps(result)[:120]
