"""The HTTP gate in front of /mcp: identity and budget for every request, before the SDK sees it.

The SDK's bearer middleware answers the same 401 to a missing and a failing credential, and
letting anonymous requests past it makes a bad token fall silently into the guest lane. This
gate keeps the three outcomes apart: no credential → guest (said in a header), a credential that
verifies → its lane, a credential that fails → 401 with the reason and `resource_metadata`.
"""

from __future__ import annotations

import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.identity import CredentialRejected, Resolver
from server.mcp_endpoint import CALLER_KEY
from server.ratelimit import RateLimiter, retry_after_header

log = logging.getLogger("parley.gate")


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "'")


class Gate:
    def __init__(
        self,
        app: ASGIApp,
        resolver: Resolver,
        resource_metadata_url: str,
        guest_limiter: RateLimiter,
        token_limiter: RateLimiter,
    ):
        self.app = app
        self.resolver = resolver
        self.resource_metadata_url = resource_metadata_url
        self.guest_limiter = guest_limiter
        self.token_limiter = token_limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client = scope.get("client") or ("unknown", 0)
        try:
            caller = self.resolver.from_header(headers.get("authorization"))
        except CredentialRejected as exc:
            log.warning("rejected credential from %s: %s", client[0], exc.reason)
            # Failed credentials spend the address's guest budget, so guessing is throttled too.
            wait = self.guest_limiter.take(f"guest:{client[0]}")
            if wait is not None:
                await self._too_many(send, "guest", wait)
                return
            await self._reject(send, exc.reason)
            return
        key = f"token:{caller.token_hash}" if caller.token_hash else f"guest:{client[0]}"
        limiter = self.token_limiter if caller.token_hash else self.guest_limiter
        wait = limiter.take(key)
        if wait is not None:
            await self._too_many(send, caller.lane, wait)
            return
        scope[CALLER_KEY] = caller

        async def send_with_lane(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"parley-lane", caller.lane.encode())]
                if caller.lane == "guest":
                    extra.append((b"parley-lane-reason", b"no credential sent; send Authorization: Bearer <token>"))
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)

        await self.app(scope, receive, send_with_lane)

    async def _reject(self, send: Send, reason: str) -> None:
        challenge = (
            f'Bearer error="invalid_token", error_description="{_quote(reason)}", '
            f'resource_metadata="{self.resource_metadata_url}"'
        )
        body = json.dumps({"error": "invalid_token", "error_description": reason}).encode()
        await _respond(send, 401, body, [(b"www-authenticate", challenge.encode())])

    async def _too_many(self, send: Send, lane: str, wait: float) -> None:
        seconds = retry_after_header(wait)
        message = f"rate limit for the {lane} lane reached; retry after {seconds} second(s)"
        body = json.dumps({"error": "rate_limited", "error_description": message, "retry_after": int(seconds)})
        await _respond(send, 429, body.encode(), [(b"retry-after", seconds.encode())])


async def _respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})
