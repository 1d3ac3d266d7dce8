"""The `plan` tool: the router, reading a person's turn against the caller's own catalogue."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from server.router.model import TurnPlan
from server.router.planner import plan as route
from server.tools.registry import Args, ToolContext, tool


class Awaiting(Args):
    tool: str = Field(max_length=64, description="The tool the previous plan asked about.")
    arguments: dict[str, str] = Field(default_factory=dict, description="Values it already had.")
    missing: list[str] = Field(
        default_factory=list, max_length=16, description="Values it asked for."
    )


class PlanArgs(Args):
    turn: str = Field(min_length=1, max_length=2000, description="What the person said, verbatim.")
    language: Literal["en", "pt-BR"] | None = Field(
        default=None,
        description="The language to read the turn in; chosen, never guessed (Portuguese with or "
        "without accents). Left out: the member's setting in the console, else the club's, else en.",
    )
    values: dict[str, str] = Field(
        default_factory=dict, description="Values the host already knows (e.g. an order id)."
    )
    awaiting: Awaiting | None = Field(
        default=None, description="Set when this turn answers the previous plan's ask."
    )
    on_unread: Literal["refuse", "model", "ask", "answer"] | None = Field(
        default=None,
        description="What to do with a turn that was unread twice. Left out: the member's setting, "
        "else the club's, else refuse.",
    )
    rephrased: bool = Field(
        default=False,
        description="True when the previous turn was unread and this is its rephrasing.",
    )


@tool()
def plan(ctx: ToolContext, args: PlanArgs) -> TurnPlan:
    """Plan a person's turn into steps against the tools this connection can see — deterministically,
    with no model call. Each step names the rule that decided it (`decided_by`).

    Read `outcome`: `run` (call the steps' tools with their `arguments`), `ask` (show `guidance.render`
    and supply what `selection.missing` names, or choose among `selection.choices`), `unread` (ask the
    person to rephrase, then `guidance.handoff` says where it goes) or `decline` (do nothing; show
    `declined_because`). `sources` says where each value came from: the turn, an answer, the host's
    context, or `step:N`. A tool you cannot see is never named in a plan.
    """
    catalogue = ctx.catalogue_for(ctx.caller.tools)
    settings = ctx.reads.router_settings()
    language = args.language or settings["language"]
    handles = visible_handles(ctx)
    context = {
        "values": args.values,
        "awaiting": args.awaiting.model_dump() if args.awaiting else None,
        "on_unread": args.on_unread or settings["on_unread"],
        "rephrased": args.rephrased,
        # values the application knows: the member handles this caller can see (the directory's)
        "known_values": {"member": handles, "handle": handles},
    }
    return route(args.turn, catalogue, language, ctx.vocabularies[language], context)


def visible_handles(ctx: ToolContext) -> list[str]:
    """Members this caller may name: those the directory shows it, and only if it can read the directory."""
    if "directory:read" not in ctx.caller.scopes:
        return []
    return ctx.reads.member_handles()
