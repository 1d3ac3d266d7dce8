"""MiniMCP without auth, the lower bound for scripts/bench_http.py. Run with MiniMCP's own venv.

MiniMCP is stateless by design (no session, no Mcp-Session-Id): its Streamable HTTP transport
answers a request with JSON and opens an event stream only when a handler pushes something.
The same tool names and descriptions as Parley lists to a member; `whoami` answers a small fixed
payload. Measured with minimcp 0.5.2, which imports `mcp.shared.version` (gone in mcp 2.x), so
its venv pins `mcp<2` (1.30.0 when measured).
Usage: python minimcp_server.py --port P --tools tools.json [--loop asyncio] [--http h11]
"""

from __future__ import annotations

import json

from _uvicorn import arguments, serve
from minimcp import MiniMCP, StreamableHTTPTransport

PAYLOAD = {"lane": "guest"}


def build(tools_file: str):
    mcp = MiniMCP(name="minimcp-bench")

    async def whoami() -> dict:
        return PAYLOAD

    async def stub() -> dict:
        return {}

    for spec in json.loads(open(tools_file).read()):
        mcp.tool.add(
            whoami if spec["name"] == "whoami" else stub,
            name=spec["name"],
            description=spec.get("description") or spec["name"],
        )
    return StreamableHTTPTransport(mcp).as_starlette("/mcp")


def main() -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args()
    serve(build(args.tools), args)


if __name__ == "__main__":
    main()
