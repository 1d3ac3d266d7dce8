"""The gate's own answers: whole JSON responses sent before the MCP app ever sees the request.

Each refusal says what happened and what to do next, with the header a client acts on
(`WWW-Authenticate`, `Retry-After`); none ever echoes a credential.
"""

from __future__ import annotations

import json

from starlette.types import Send

from server.http.ratelimit import retry_after_header
from server.metrics import RATE_LIMITED, requests_by


async def respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    """A whole JSON answer, sent before the app ever sees the request."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'")


async def bad_request(send: Send, description: str) -> None:
    body = json.dumps({"error": "invalid_request", "error_description": description})
    await respond(send, 400, body.encode(), [])


async def json_rpc_error(send: Send, status: int, code: int, message: str) -> None:
    """A JSON-RPC error with no id: the SDK's own shape, for what the gate refuses before it."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})
    await respond(send, status, body.encode(), [])


async def too_large(send: Send) -> None:
    await respond(send, 413, b'{"error": "request body too large"}', [])


async def challenge(send: Send, resource_metadata_url: str) -> None:
    """401 for a connection that refuses the guest lane and sent no credential: this starts an
    MCP client's OAuth discovery."""
    header = f'Bearer resource_metadata="{resource_metadata_url}"'
    description = "this connection refuses the guest lane: send a credential"
    body = json.dumps({"error": "unauthorized", "error_description": description})
    await respond(send, 401, body.encode(), [(b"www-authenticate", header.encode())])


async def insufficient_scope(send: Send, needed: str, resource_metadata_url: str) -> None:
    header = (
        f'Bearer error="insufficient_scope", scope="{needed}", '
        f'error_description="this call needs {needed}", resource_metadata="{resource_metadata_url}"'
    )
    body = json.dumps({"error": "insufficient_scope", "scope": needed})
    await respond(send, 403, body.encode(), [(b"www-authenticate", header.encode())])


async def reject(send: Send, reason: str, resource_metadata_url: str) -> None:
    """401 for a credential that failed, with the reason: never a silent fall to the guest lane."""
    requests_by("none", "rejected").inc()
    header = (
        f'Bearer error="invalid_token", error_description="{_quote(reason)}", '
        f'resource_metadata="{resource_metadata_url}"'
    )
    body = json.dumps({"error": "invalid_token", "error_description": reason}).encode()
    await respond(send, 401, body, [(b"www-authenticate", header.encode())])


async def unavailable(send: Send, description: str) -> None:
    requests_by("none", "unavailable").inc()
    body = json.dumps({"error": "temporarily_unavailable", "error_description": description})
    await respond(send, 503, body.encode(), [(b"retry-after", b"1")])


async def too_many(send: Send, lane: str, wait: float) -> None:
    RATE_LIMITED.labels(lane).inc()
    requests_by(lane, "rate_limited").inc()
    seconds = retry_after_header(wait)
    message = f"rate limit for the {lane} lane reached; retry after {seconds} second(s)"
    body = json.dumps(
        {"error": "rate_limited", "error_description": message, "retry_after": int(seconds)}
    )
    await respond(send, 429, body.encode(), [(b"retry-after", seconds.encode())])
