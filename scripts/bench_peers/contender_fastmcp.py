"""FastMCP as a contender (bench_peers/fastmcp_server.py, in its own venv): auth equivalent to
Parley's, either a SHA-256 token lookup per request or its JWTVerifier (ES256), require_scopes on
every tool."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from bench_peers.contender import PEERS, Contender, Skip, ensure_venv, free_port, version_in

# FastMCP's own venv, outside the work tree; the version measured, pinned.
FASTMCP_VENV = Path("/tmp/parley-bench-fastmcp/venv")
FASTMCP_PINS = ["fastmcp==4.2.3"]  # pins its own SDK: mcp 2.3.0 when measured


def fastmcp_contenders(
    names: set[str],
    tools: Path,
    scopes: list[str],
    member_token: str,
    impl: list[str],
    pins: list[str],
    work: Path,
    notes: list[str],
) -> list[Contender]:
    """`pins`: what every peer venv shares with Parley's (uvicorn, and uvloop/httptools when used)."""
    out: list[Contender] = []
    if not names & {"fastmcp", "fastmcp-jwt"}:
        return out
    try:
        python = ensure_venv(FASTMCP_VENV, [*FASTMCP_PINS, *pins], work / "fastmcp-install.log")
        versions = f"fastmcp {version_in(python, 'fastmcp')}, mcp {version_in(python, 'mcp')}"
        if "fastmcp" in names:
            rows = {
                hashlib.sha256(member_token.encode()).hexdigest(): {
                    "principal": "bruno",
                    "agent": "assistant",
                    "scopes": scopes,
                }
            }
            (work / "fastmcp-tokens.json").write_text(json.dumps(rows))
            port = free_port()
            out.append(
                Contender(
                    "fastmcp",
                    f"FastMCP ({versions}): SHA-256 token lookup per request, require_scopes per tool",
                    port,
                    [
                        str(python),
                        str(PEERS / "fastmcp_server.py"),
                        "--port",
                        str(port),
                        "--tools",
                        str(tools),
                        "--auth",
                        "token",
                        "--tokens",
                        str(work / "fastmcp-tokens.json"),
                        *impl,
                    ],
                    work / "fastmcp.log",
                    token=member_token,
                )
            )
        if "fastmcp-jwt" in names:
            key_dir = work / "fastmcp-jwt"
            key_dir.mkdir()
            (key_dir / "scopes.json").write_text(json.dumps(scopes))
            port = free_port()
            out.append(
                Contender(
                    "fastmcp-jwt",
                    f"FastMCP ({versions}): JWTVerifier (ES256, iss+aud), require_scopes per tool",
                    port,
                    [
                        str(python),
                        str(PEERS / "fastmcp_server.py"),
                        "--port",
                        str(port),
                        "--tools",
                        str(tools),
                        "--auth",
                        "jwt",
                        "--key-dir",
                        str(key_dir),
                        *impl,
                    ],
                    work / "fastmcp-jwt.log",
                )
            )
    except (Skip, subprocess.SubprocessError, OSError) as exc:
        notes.append(f"FastMCP skipped: {exc}")
    return out


def jwt_token(contender: Contender, work: Path) -> None:
    """fastmcp-jwt mints its token as it starts: read it once the server is up."""
    if contender.name == "fastmcp-jwt":
        contender.token = (work / "fastmcp-jwt" / "token").read_text().strip()
