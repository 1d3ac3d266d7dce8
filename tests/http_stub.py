"""Answering from the small loopback HTTP servers tests stand up for outside services."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler


def reply(handler: BaseHTTPRequestHandler, status: int, body: dict | bytes) -> None:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
