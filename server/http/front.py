"""The front door: /mcp goes straight to the gate, before Starlette's routing and exception layer.

Every MCP message is a request to the one path /mcp, and the gate is a plain ASGI app that answers
every outcome itself; Starlette's router (a match against each route), its exception middleware and
the scope it builds for a route did nothing for it but cost a tenth of an authenticated `whoami`.
Installed as the outermost user middleware, so Starlette's error middleware still stands around it
(an unexpected exception is still a bare 500, logged), and every other path (the console, the
metadata, health, metrics) is routed by Starlette as before.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class FrontDoor:
    def __init__(self, app: ASGIApp, path: str, to: ASGIApp):
        self.app = app
        self.path = path
        self.to = to

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            await self.to(scope, receive, send)
        else:
            await self.app(scope, receive, send)
