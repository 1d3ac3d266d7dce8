"""The browser pages' edge (the console, sign-in and the authorization server): every path, query and
form or JSON body is read once here, bounded, and refused with a 400 when it holds a control character
(`server.plaintext`), so no handler below ever sees one. Tool arguments get the same rule in the tools'
`Args` model; /mcp bounds its own body in the gate."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.http.bodies import read_bounded
from server.http.replies import respond
from server.plaintext import control_character

MAX_PAGE_BODY = 256 * 1024  # a console form or an OAuth request; far above any real one
FORM = b"application/x-www-form-urlencoded"
JSON_TYPE = b"application/json"


def _refusal(where: str, found: str) -> bytes:
    return json.dumps(
        {
            "error": "invalid_request",
            "error_description": f"the {where} contains the control character {found}; "
            "send plain text (nothing was changed)",
        }
    ).encode()


def _found_in_body(content_type: bytes, body: bytes) -> str | None:
    if content_type.startswith(FORM):
        return control_character(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    if content_type.startswith(JSON_TYPE):
        try:
            return control_character(json.loads(body))
        except (ValueError, RecursionError):
            return (
                None  # not JSON, or nested past reading: the endpoint refuses it in its own words
            )
    return None


class PlainText:
    """ASGI middleware for the browser routes: bounded bodies, no control characters anywhere."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_PAGE_BODY):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = control_character(scope["path"])
        if found is not None:
            await respond(send, 400, _refusal("path", found), [])
            return
        found = control_character(
            parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        )
        if found is not None:
            await respond(send, 400, _refusal("query", found), [])
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        body = await read_bounded(receive, send, self.max_body)
        if body is None:
            return
        content_type = dict(scope["headers"]).get(b"content-type", b"").lower()
        found = _found_in_body(content_type, body)
        if found is not None:
            await respond(
                send, 400, _refusal("form" if content_type.startswith(FORM) else "body", found), []
            )
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
