"""`parley doctor`: ask an endpoint what it is really serving to this credential, and say why.

A connection that forgot its token works, with most of the product missing; the doctor makes
that fall loud and gives it an exit code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.access import Lane

LANE_ORDER = {lane.value: rank for rank, lane in enumerate(Lane)}  # guest < applicant < member

EXIT_OK = 0
EXIT_UNREACHABLE = 1
EXIT_LOWER_LANE = 2


@dataclass
class Diagnosis:
    url: str
    token_sent: bool
    lane: str | None = None
    why: str = ""
    scopes: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    tools_hidden: int = 0
    rejected: str | None = None
    error: str | None = None
    hint: str | None = None  # what to try when nothing answered at the URL

    def exit_code(self, expect: str | None) -> int:
        if self.error:
            return EXIT_UNREACHABLE
        if self.rejected:
            return EXIT_LOWER_LANE
        if self.token_sent and self.lane == Lane.GUEST:
            return EXIT_LOWER_LANE
        if expect and LANE_ORDER.get(self.lane or Lane.GUEST, 0) < LANE_ORDER[expect]:
            return EXIT_LOWER_LANE
        return EXIT_OK

    def report(self, expect: str | None) -> str:
        lines = [
            f"endpoint: {self.url}",
            f"credential: {'token sent' if self.token_sent else 'none sent'}",
        ]
        if self.error:
            lines.append(f"error: {self.error}")
            if self.hint:
                lines.append(f"hint: {self.hint}")
            return "\n".join(lines)
        if self.rejected:
            lines += [
                f"lane: none — the token was refused: {self.rejected}",
                "The server never downgrades a bad token to guest.",
            ]
            return "\n".join(lines)
        lines += [
            f"lane: {self.lane}",
            f"why: {self.why}",
            f"effective scopes: {', '.join(self.scopes) or 'none'}",
            f"tools: {len(self.tools)} visible, {self.tools_hidden} hidden ({', '.join(self.tools)})",
        ]
        if self.lane == Lane.GUEST:
            lines.append(
                "WARNING: guest lane. "
                + (
                    "A token was configured but did not reach the server as a credential."
                    if self.token_sent
                    else "No credential was sent; pass --token or set PARLEY_TOKEN."
                )
            )
        elif self.lane == Lane.APPLICANT:
            lines.append(
                "note: the principal is not admitted yet; the member directory stays closed."
            )
        if expect and self.exit_code(expect) == EXIT_LOWER_LANE and self.lane != Lane.GUEST:
            lines.append(f"WARNING: expected the {expect} lane.")
        return "\n".join(lines)


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


async def diagnose(
    url: str, token: str | None, timeout: float = 10.0, unreachable: str | None = None
) -> Diagnosis:
    """`unreachable` is the hint to give when nothing answers at `url`."""
    diagnosis = Diagnosis(url=url, token_sent=bool(token))
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
            # A bare probe first: a refused token answers 401 with its reason before any MCP exchange.
            probe = await http.post(
                url,
                json={"jsonrpc": "2.0", "id": 0, "method": "ping"},
                headers={"Accept": "application/json, text/event-stream"},
            )
            if probe.status_code == 401:
                try:
                    diagnosis.rejected = probe.json().get("error_description") or "invalid token"
                except ValueError:
                    diagnosis.rejected = probe.headers.get("www-authenticate", "invalid token")
                return diagnosis
            async with Client(
                streamable_http_client(url, http_client=http), mode="legacy"
            ) as client:
                result = await client.call_tool("whoami", {})
                if result.is_error or not isinstance(result.structured_content, dict):
                    diagnosis.error = (
                        "the endpoint has no usable whoami tool; is this a Parley server?"
                    )
                    return diagnosis
                who = result.structured_content
                listed = await client.list_tools()
    except (httpx2.HTTPError, OSError) as exc:
        diagnosis.error = f"cannot reach {url}: {exc}"
        diagnosis.hint = unreachable
        return diagnosis
    except Exception as exc:  # an MCP-level failure: report it, never a traceback
        diagnosis.error = f"MCP exchange failed: {_innermost(exc)}"
        return diagnosis
    diagnosis.lane = who.get("lane")
    diagnosis.why = who.get("why", "")
    diagnosis.scopes = who.get("effective_scopes", [])
    diagnosis.tools = [tool.name for tool in listed.tools]
    diagnosis.tools_hidden = who.get("tools_hidden", 0)
    return diagnosis


def run(
    url: str, token: str | None, expect: str | None, as_json: bool, unreachable: str | None = None
) -> int:
    diagnosis = anyio.run(diagnose, url, token, 10.0, unreachable)
    if as_json:
        payload = {k: v for k, v in diagnosis.__dict__.items()}
        payload["exit_code"] = diagnosis.exit_code(expect)
        print(json.dumps(payload, indent=2))
    else:
        print(diagnosis.report(expect))
    return diagnosis.exit_code(expect)
