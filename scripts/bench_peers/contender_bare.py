"""The bare lowlevel MCP SDK server as a contender (bench_peers/bare_server.py): the same tools as
Parley lists to its member, no identity, no scopes, no audit; as shipped, and with JSON answers to
plain calls as Parley's transport uses."""

from __future__ import annotations

from pathlib import Path

from bench_peers.contender import PEERS, PYTHON, Contender, free_port


def bare_contenders(names: set[str], tools: Path, impl: list[str], work: Path) -> list[Contender]:
    out: list[Contender] = []
    if "bare" in names:
        port = free_port()
        out.append(
            Contender(
                "bare",
                "bare lowlevel MCP SDK server, same tools, no auth",
                port,
                [
                    str(PYTHON),
                    str(PEERS / "bare_server.py"),
                    "--port",
                    str(port),
                    "--tools",
                    str(tools),
                    *impl,
                ],
                work / "bare.log",
            )
        )
    if (
        "bare-json" in names
    ):  # the SDK with the transport settings Parley now uses: JSON answers to plain calls
        port = free_port()
        out.append(
            Contender(
                "bare-json",
                "bare lowlevel MCP SDK server, json_response=True as Parley's, no auth",
                port,
                [
                    str(PYTHON),
                    str(PEERS / "bare_server.py"),
                    "--port",
                    str(port),
                    "--tools",
                    str(tools),
                    "--json",
                    *impl,
                ],
                work / "bare-json.log",
            )
        )
    return out
