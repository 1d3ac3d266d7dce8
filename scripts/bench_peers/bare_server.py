"""The bare MCP SDK server for scripts/bench_http.py: no identity, no scopes, no audit.

A lowlevel `mcp.server.lowlevel.Server` behind a `StreamableHTTPSessionManager` mounted in
Starlette: stateful sessions, SSE responses as the SDK's default (or `--json` for plain JSON
answers, as Parley's endpoint now answers), DNS-rebinding protection for loopback. It lists the
tool definitions Parley listed to a member (read from a JSON file the bench saved) and answers
`whoami` with a small fixed payload. Imports nothing from Parley: run it with any python that has the `mcp` SDK 2.x.

Usage: python bare_server.py --port P --tools tools.json [--json] [--loop asyncio] [--http h11]
"""

from __future__ import annotations

import contextlib
import json

import mcp_types as types
from _uvicorn import arguments, serve
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.routing import Route

PAYLOAD = {"lane": "guest"}


def build(tools_file: str, json_response: bool = False) -> Starlette:
    definitions = [types.Tool.model_validate(tool) for tool in json.loads(open(tools_file).read())]

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=definitions)

    async def call_tool(ctx, params):
        if params.name != "whoami":
            raise MCPError(code=-32602, message=f"Unknown tool: {params.name}")
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(PAYLOAD))], structured_content=PAYLOAD
        )

    # The same settings as Parley's session manager (server/mcp_endpoint.py:session_manager today).
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    manager = StreamableHTTPSessionManager(
        app=Server("bare", on_list_tools=list_tools, on_call_tool=call_tool),
        json_response=json_response,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async with manager.run():
            yield

    return Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))], lifespan=lifespan
    )


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument(
        "--json", action="store_true", help="answer plain calls with application/json"
    )
    args = parser.parse_args()
    serve(build(args.tools, args.json), args)


if __name__ == "__main__":
    main()
