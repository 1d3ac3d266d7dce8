"""Connect your agent: the MCP URL as this club is reached, the header to send, and configuration a
member can paste into the clients people use (MCP Inspector, Claude Code and Claude Desktop, the
official Python SDK, fastmcp).

Each snippet is built from data (a dict dumped as JSON, a list of words quoted for a shell, Python
text whose only inputs are `repr` of the URL and header), so a URL or token can never break out of
the format it sits in. Without a freshly minted token the snippets carry `PLACEHOLDER`: a token is
shown once, on the page that minted it, and never rebuilt from the store.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from starlette.requests import Request

PLACEHOLDER = "PASTE_YOUR_TOKEN_HERE"
SERVER_NAME = "parley"
# The MCP Inspector the snippet runs, as tests/ts/package.json pins it (a test keeps them equal): an
# unpinned `npx` under Node 20 silently picks Inspector 0.15, which cannot send the header.
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
INSPECTOR_NODE = "v22.19"
# What the Python snippets need installed, as this server's own pins name them.
PIP_SDK = 'pip install "mcp>=2.3,<2.4"'
PIP_FASTMCP = "pip install fastmcp"


@dataclass(frozen=True)
class Snippet:
    key: str  # an id-safe name: the copy button points at it
    client: str
    where: str  # where a person pastes it
    text: str


def mcp_url(request: Request, public_url: str | None) -> str:
    """The MCP endpoint as members reach it: PARLEY_PUBLIC_URL when it is set (behind a proxy the
    request's own host is the proxy's), else the scheme, host and port this request came in on."""
    base = public_url or str(request.base_url)
    return base.rstrip("/") + "/mcp"


def header_value(token: str | None) -> str:
    return f"Bearer {token or PLACEHOLDER}"


def snippets(url: str, token: str | None) -> list[Snippet]:
    header = header_value(token)
    inspector = (
        f"node --version   # Inspector 2 needs Node {INSPECTOR_NODE} or newer\n"
        + shlex.join(
            [
                "npx",
                "-y",
                INSPECTOR,
                "--cli",
                url,
                "--transport",
                "http",
                "--header",
                f"Authorization: {header}",
                "--method",
                "tools/list",
            ]
        )
    )
    claude_code = json.dumps(
        {
            "mcpServers": {
                SERVER_NAME: {"type": "http", "url": url, "headers": {"Authorization": header}}
            }
        },
        indent=2,
    )
    # Claude Desktop's config file starts local programs only: the mcp-remote bridge carries the header.
    claude_desktop = json.dumps(
        {
            "mcpServers": {
                SERVER_NAME: {
                    "command": "npx",
                    "args": ["-y", "mcp-remote", url, "--header", "Authorization:${PARLEY_AUTH}"],
                    "env": {"PARLEY_AUTH": header},
                }
            }
        },
        indent=2,
    )
    python_sdk = f"""# {PIP_SDK}   (the official MCP Python SDK; it brings httpx2)
import asyncio

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

URL = {url!r}
HEADERS = {{"Authorization": {header!r}}}


async def main() -> None:
    async with httpx2.AsyncClient(headers=HEADERS, timeout=30) as http:
        # A refused token is answered 401 with the reason: ask once plainly, to print it
        check = await http.post(
            URL,
            json={{"jsonrpc": "2.0", "id": 0, "method": "ping"}},
            headers={{"Accept": "application/json, text/event-stream"}},
        )
        if check.status_code == 401:
            raise SystemExit(f"refused: {{check.json().get('error_description', check.text)}}")
        async with Client(streamable_http_client(URL, http_client=http)) as client:
            tools = await client.list_tools()
            print([tool.name for tool in tools.tools])


asyncio.run(main())
"""
    fastmcp = f"""# {PIP_FASTMCP}
import asyncio

from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

transport = StreamableHttpTransport(url={url!r}, headers={{"Authorization": {header!r}}})


async def main() -> None:
    async with Client(transport) as client:
        print([tool.name for tool in await client.list_tools()])


asyncio.run(main())
"""
    return [
        Snippet(
            "inspector",
            "MCP Inspector",
            f"Run it in a terminal: it lists the tools your agent can use. It needs Node "
            f"{INSPECTOR_NODE} or newer (the first line checks).",
            inspector,
        ),
        Snippet(
            "claude-code",
            "Claude Code",
            "Save it as .mcp.json in your project folder.",
            claude_code,
        ),
        Snippet(
            "claude-desktop",
            "Claude Desktop",
            "Add it to claude_desktop_config.json, then restart Claude.",
            claude_desktop,
        ),
        Snippet(
            "python-sdk",
            "Python (official MCP SDK)",
            f"Install the SDK ({PIP_SDK}), save it as a .py file and run it.",
            python_sdk,
        ),
        Snippet(
            "fastmcp",
            "Python (fastmcp)",
            f"Install fastmcp ({PIP_FASTMCP}), save it as a .py file and run it.",
            fastmcp,
        ),
    ]


def connection(
    request: Request, public_url: str | None, token: str | None = None
) -> dict[str, object]:
    """What the "Connect your agent" panel shows: the URL, the header, and each client's snippet."""
    url = mcp_url(request, public_url)
    return {
        "url": url,
        "header": f"Authorization: {header_value(token)}",
        "has_token": token is not None,
        "snippets": snippets(url, token),
    }
