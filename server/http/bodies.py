"""A page's request body read whole and bounded, for the ASGI layers that must see it before the app."""

from __future__ import annotations

from starlette.types import Receive, Send

from server.http.replies import respond


async def read_bounded(receive: Receive, send: Send, max_body: int) -> bytes | None:
    """A page's whole request body, or None when there is nothing to serve: the client left before
    the body ended, or it passed `max_body` (then answered 413 here)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_body:
            await respond(send, 413, b'{"error": "request body too large"}', [])
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
