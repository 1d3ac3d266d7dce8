"""MiniMCP as a contender (bench_peers/minimcp_server.py, in its own venv): stateless, no auth, the
fastest Python MCP server we know, so the lower bound."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench_peers.contender import PEERS, Contender, Skip, ensure_venv, free_port, version_in

# MiniMCP's own venv, outside the work tree; the versions measured, pinned.
MINIMCP_VENV = Path("/tmp/parley-bench-minimcp/venv")
MINIMCP_PINS = [
    "minimcp==0.5.2",
    "mcp==1.30.0",
]  # minimcp 0.5.2 imports mcp.shared.version: gone in mcp 2.x


def minimcp_contenders(
    names: set[str], tools: Path, impl: list[str], pins: list[str], work: Path, notes: list[str]
) -> list[Contender]:
    if "minimcp" not in names:
        return []
    try:
        python = ensure_venv(MINIMCP_VENV, [*MINIMCP_PINS, *pins], work / "minimcp-install.log")
        versions = f"minimcp {version_in(python, 'minimcp')}, mcp {version_in(python, 'mcp')}"
        port = free_port()
        return [
            Contender(
                "minimcp",
                f"MiniMCP ({versions}), stateless, no auth: the lower bound",
                port,
                [
                    str(python),
                    str(PEERS / "minimcp_server.py"),
                    "--port",
                    str(port),
                    "--tools",
                    str(tools),
                    *impl,
                ],
                work / "minimcp.log",
                stateless=True,
            )
        ]
    except (Skip, subprocess.SubprocessError, OSError) as exc:
        notes.append(f"MiniMCP skipped: {exc}")
        return []
