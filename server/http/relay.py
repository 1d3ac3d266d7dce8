"""A request's receive and send as the MCP app gets them: let go of when the request ends.

The SDK keeps each session's last message, and with it the request that carried it, until that
session's next request. Released, the request's headers, body, caller and connection die with the
request instead of ageing into the oldest GC generation, whose full collections grow with every
open session (seconds, with 10,000 of them).
"""

from __future__ import annotations

from starlette.types import Message, Receive, Send


class Relay:
    """The request's receive and send, until `release`: afterwards receive reports the client gone
    and send refuses, as a server does once a response is complete. A body the gate already read
    comes first, whole, as the client sent it."""

    __slots__ = ("_receive", "_send", "_body")

    def __init__(self, receive: Receive, send: Send, body: bytes | None = None):
        self._receive: Receive | None = receive
        self._send: Send | None = send
        self._body = body

    async def receive(self) -> Message:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        if self._receive is None:
            return {"type": "http.disconnect"}
        return await self._receive()

    async def send(self, message: Message) -> None:
        if self._send is None:
            raise RuntimeError(f"{message.get('type')!r} sent after the request ended")
        await self._send(message)

    def release(self) -> None:
        self._receive = self._send = self._body = None
