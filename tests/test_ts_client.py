"""A client no one in this project wrote: the official TypeScript MCP SDK signs in by OAuth and lists tools."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.access.test_e2e_lanes import APPLICANT, MEMBER

SCRIPT = Path(__file__).resolve().parent / "ts" / "oauth_client.mjs"


def run_ts_client(url: str, handle: str, password: str) -> dict:
    node = shutil.which("node")
    assert node, "node is missing: scripts/test installs it"
    assert (SCRIPT.parent / "node_modules" / "@modelcontextprotocol" / "sdk").exists(), (
        "run scripts/test (npm ci)"
    )
    result = subprocess.run(
        [node, str(SCRIPT), url, handle, password], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_typescript_sdk_runs_its_own_oauth_and_lists_the_member_lane(club):
    seen = run_ts_client(club.url + "?guest=no", "bruno", club.tokens.passwords["bruno"])
    assert seen["sawUnauthorized"] and seen["registered"] and seen["usedPkce"]
    assert seen["resourceParam"] == club.url
    assert seen["tokenType"].lower() == "bearer"
    assert seen["tools"] == MEMBER and seen["lane"] == "member"
    assert "MEMBER lane" in seen["instructions"]


def test_typescript_sdk_applicant_gets_the_applicant_lane(club):
    seen = run_ts_client(club.url + "?guest=no", "carla", club.tokens.passwords["carla"])
    assert seen["tools"] == APPLICANT and seen["lane"] == "applicant"
