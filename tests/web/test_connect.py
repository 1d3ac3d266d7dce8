"""Connect your agent: each snippet the console gives is valid for its client's format, and a client using
exactly the snippet's URL and header reaches the member lane (the Python SDK snippet runs as written;
MCP Inspector's CLI runs with the snippet's own arguments)."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
from html import unescape

from starlette.requests import Request

from server.web.connect import INSPECTOR as PINNED_INSPECTOR
from server.web.connect import INSPECTOR_NODE, PLACEHOLDER, mcp_url, snippets
from tests.conftest import connect, running_club, tool_names
from tests.console_helpers import ConsoleUser
from tests.test_inspector import INSPECTOR, TS, node22

MEMBER_ONLY = "search_directory"  # a tool only the member lane lists


def shown(html: str, key: str) -> str:
    match = re.search(rf'<code id="snippet-{key}">(.*?)</code>', html, re.S)
    assert match, f"no {key} snippet on the page"
    return unescape(match.group(1))


async def minted_page(club) -> tuple[str, str]:
    """Bruno mints a token in the console; the page that shows it, and the token."""
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        agents = await bruno.get("/console/agents")
        agent_id = agents.text.split('<option value="')[1].split('"')[0]
        minted = await bruno.post(
            "/console/tokens",
            {
                "agent": agent_id,
                "label": "snippets",
                "scope": ["club:read", "directory:read", "inbox:read"],
            },
            page="/console/agents",
        )
        assert minted.status_code == 303
        html = (await bruno.get("/console/agents")).text
        token = unescape(html.split('id="minted-token">')[1].split("<")[0])
        assert token not in (await bruno.get("/console/agents")).text  # once, never again
        return html, token


def member_tools(names: list[str]) -> None:
    assert MEMBER_ONLY in names, names


async def test_each_snippet_is_valid_for_its_client_and_connects_in_the_member_lane(club, tmp_path):
    html, token = await minted_page(club)
    url, header = club.url, f"Bearer {token}"
    assert (
        unescape(html.split('id="connect-url">')[1].split("<")[0]) == url
    )  # the address this server is reached at

    code = json.loads(
        shown(html, "claude-code")
    )  # .mcp.json: {"mcpServers": {name: {type, url, headers}}}
    [(name, server)] = code["mcpServers"].items()
    assert re.fullmatch(r"[a-z][a-z0-9_-]*", name) and server == {
        "type": "http",
        "url": url,
        "headers": {"Authorization": header},
    }
    async with connect(
        server["url"], server["headers"]["Authorization"].removeprefix("Bearer ")
    ) as client:
        member_tools(await tool_names(client))

    desktop = json.loads(
        shown(html, "claude-desktop")
    )  # claude_desktop_config.json: a local command
    [server] = desktop["mcpServers"].values()
    assert server["command"] == "npx" and all(isinstance(a, str) for a in server["args"])
    assert server["args"][:3] == ["-y", "mcp-remote", url] and server["args"][3] == "--header"
    sent = re.sub(
        r"\$\{(\w+)\}", lambda m: server["env"][m.group(1)], server["args"][4]
    )  # as mcp-remote expands it
    assert sent == f"Authorization:{header}"

    program = tmp_path / "connect_sdk.py"  # the Python SDK snippet, run exactly as shown
    program.write_text(shown(html, "python-sdk"))
    result = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    member_tools(ast.literal_eval(result.stdout.strip()))

    tree = ast.parse(
        shown(html, "fastmcp")
    )  # fastmcp: StreamableHttpTransport(url=..., headers=...), then Client
    imports = {
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert {
        ("fastmcp", "Client"),
        ("fastmcp.client.transports", "StreamableHttpTransport"),
    } <= imports
    [call] = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "StreamableHttpTransport"
    ]
    given = {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords}
    assert given == {"url": url, "headers": {"Authorization": header}}

    check, command = shown(html, "inspector").splitlines()  # MCP Inspector's CLI, as given
    assert check.startswith("node --version   # ") and INSPECTOR_NODE in check
    words = shlex.split(command)
    assert words[:4] == ["npx", "-y", PINNED_INSPECTOR, "--cli"]
    run = [str(node22()), str(INSPECTOR), *words[3:], "--format", "json", "--stored-auth-only"]
    inspected = subprocess.run(
        run,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=TS,
        env={**os.environ, "HOME": str(tmp_path), "NO_COLOR": "1"},
    )
    assert inspected.returncode == 0, inspected.stderr[-2000:]
    member_tools([tool["name"] for tool in json.loads(inspected.stdout)["result"]["tools"]])


async def test_home_gives_the_address_and_header_but_never_a_token(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        home = (await bruno.get("/console")).text
    assert unescape(home.split('id="connect-url">')[1].split("<")[0]) == club.url
    assert f"Authorization: Bearer {PLACEHOLDER}" in home and "pa_" not in home
    assert json.loads(shown(home, "claude-code"))["mcpServers"]["parley"]["url"] == club.url


def test_the_public_url_setting_wins_over_the_address_a_request_came_in_on():
    request = Request(
        {
            "type": "http",
            "scheme": "http",
            "server": ("127.0.0.1", 18793),
            "path": "/console",
            "headers": [(b"host", b"127.0.0.1:18793")],
            "root_path": "",
            "query_string": b"",
        }
    )
    assert mcp_url(request, None) == "http://127.0.0.1:18793/mcp"
    assert mcp_url(request, "https://club.example.org") == "https://club.example.org/mcp"


def test_a_url_or_token_cannot_break_out_of_its_snippet():
    hostile = 'https://x.example/mcp"; import os; os.system("id") #'
    token = "pa_a'b\"c\\d $(id) `id`"
    made = {s.key: s.text for s in snippets(hostile, token)}
    assert json.loads(made["claude-code"])["mcpServers"]["parley"]["url"] == hostile
    words = shlex.split(made["inspector"].splitlines()[1])
    assert words[4] == hostile and words[8] == f"Authorization: Bearer {token}"
    for key in ("python-sdk", "fastmcp"):
        tree = ast.parse(made[key])
        assert not any(
            isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "system"
            for n in ast.walk(tree)
        )
        assert hostile in {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}


async def test_with_parley_public_url_set_pages_give_that_address(tmp_path):
    """Behind a proxy the request's own host is the proxy's: PARLEY_PUBLIC_URL, when set, is what members paste."""
    with running_club(tmp_path, env={"PARLEY_PUBLIC_URL": "http://club.example.org/"}) as club:
        direct = f"http://127.0.0.1:{club.live.sock.getsockname()[1]}"
        async with ConsoleUser(direct, "bruno", club.tokens.passwords["bruno"]) as bruno:
            home = (await bruno.get("/console")).text
        assert (
            unescape(home.split('id="connect-url">')[1].split("<")[0])
            == "http://club.example.org/mcp"
        )
        assert "127.0.0.1" not in shown(home, "claude-code")


def test_the_inspector_snippet_runs_the_inspector_the_tests_run():
    """Pinned, as tests/ts/package.json pins it: `npx` unpinned under Node 20 picks Inspector 0.15."""
    pinned = json.loads((TS / "package.json").read_text())["dependencies"]
    name, _, version = PINNED_INSPECTOR.rpartition("@")
    assert pinned[name] == version


async def test_the_python_snippet_from_home_says_what_to_install_and_why_it_was_refused(
    club, tmp_path
):
    """Run as copied from Home, with its placeholder: one line with the server's reason, not a trace."""
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        home = (await bruno.get("/console")).text
    text = shown(home, "python-sdk")
    assert text.splitlines()[0].startswith('# pip install "mcp')
    program = tmp_path / "from_home.py"
    program.write_text(text)
    result = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1 and result.stderr.strip() == "refused: unknown token", (
        result.stderr[-3000:]
    )
