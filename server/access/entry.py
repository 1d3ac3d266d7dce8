"""The entry table and visibility: which of the manifest's personas a caller talks to, and the
tools that persona shows this caller.

The manifest's `agents:` are personas (who a caller talks to); a principal's agents, which hold
tokens, are another thing (`server.identity`). The first entry row whose conditions all hold wins,
and that is the whole rule.
"""

from __future__ import annotations

from server.errors import ConfigError
from server.manifest.schema import Manifest


def entry_persona(manifest: Manifest, authenticated: bool, claims: dict[str, str]) -> str:
    for row in manifest.entry:
        if row.matches(authenticated, claims):
            return row.agent
    raise ConfigError("no entry row matched; the last row must match everyone")


def visible_tools(
    manifest: Manifest, scopes: frozenset[str], verified: bool, persona: str | None
) -> list[str]:
    """Tool names a caller may see and call, in declaration order so listings are stable.

    The persona's `tools` narrow further; `access: private` holds whatever persona was chosen."""
    allowed = (
        set(manifest.agents[persona].tools)
        if persona is not None and persona in manifest.agents
        else None
    )
    visible = []
    for name, tool in manifest.tools.items():
        if allowed is not None and name not in allowed:
            continue
        if tool.access == "private" and not verified:
            continue
        if tool.needs is not None and tool.needs not in scopes:
            continue
        visible.append(name)
    return visible
