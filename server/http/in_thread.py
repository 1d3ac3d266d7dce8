"""Run a whole ASGI app (the console and the authorization pages) in a worker thread, for a store
across the network: their handlers read and write the database as they go, and none of that may
wait on the server's event loop. The request body is read first (bounded), the app runs on its own
short-lived loop in a worker thread, and its buffered response is sent from the server's loop.

Only for apps whose responses are small and whole (pages, redirects, JSON), never streams.
"""

from __future__ import annotations

import asyncio

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.http.gate import read_bounded

MAX_BODY = 1_000_000


class InThread:
    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = await read_bounded(receive, send, self.max_body)
        if body is None:
            return
        messages = await anyio.to_thread.run_sync(self._run, dict(scope), body)
        for message in messages:
            await send(message)

    def _run(self, scope: Scope, body: bytes) -> list[Message]:
        messages: list[Message] = []
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}  # the body was whole; nothing more will come

        async def collect(message: Message) -> None:
            messages.append(message)

        async def main() -> None:
            await self.app(scope, replay, collect)

        asyncio.run(main())
        return messages
