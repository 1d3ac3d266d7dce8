"""A liveness check an agent can call: the club answers, and says its name."""

from __future__ import annotations

from server.tools.registry import NoArgs, Output, ToolContext, tool


class Pong(Output):
    club: str


@tool(pure=True)
def ping(ctx: ToolContext, args: NoArgs) -> Pong:
    """Check that the club answers; returns the club's name. Costs nothing and changes nothing."""
    return Pong(club=ctx.manifest.club.name)
