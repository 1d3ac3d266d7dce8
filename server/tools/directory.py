"""The member directory: admitted members only, and what each one's agent can be asked about."""

from __future__ import annotations

import json

from pydantic import Field

from server.identity import mandates, principals
from server.store import principals as principal_rows
from server.tools.registry import Args, FoldedText, Output, ToolContext, ToolError, tool


class SearchArgs(Args):
    query: FoldedText = Field(
        default="",
        max_length=200,
        description="Words to match in handle, name, bio or tags (case does not matter).",
    )
    limit: int = Field(default=20, ge=1, le=100)


class MemberCard(Output):
    handle: str
    name: str
    bio: str
    tags: list[str]


class Directory(Output):
    members: list[MemberCard]


@tool()
def search_directory(ctx: ToolContext, args: SearchArgs) -> Directory:
    """Search admitted members by words in their handle, name, bio or tags (all words must match).
    An empty query lists members alphabetically. Use `view_member` for one member's details.
    """
    rows = principal_rows.search_members(ctx.db, args.query.split(), args.limit)
    return Directory(
        members=[
            MemberCard(handle=r["handle"], name=r["name"], bio=r["bio"], tags=json.loads(r["tags"]))
            for r in rows
        ]
    )


class ViewArgs(Args):
    handle: str = Field(min_length=2, max_length=32, description="The member's handle.")


class MemberView(Output):
    handle: str
    name: str
    bio: str
    tags: list[str]
    admitted_at: str | None
    askable: bool = Field(
        description="Whether the member's answering agent is under a valid mandate."
    )
    topics: list[str] = Field(description="Topics the member's answering agent may treat.")
    quotable: bool = Field(description="Whether its answers may be quoted with attribution.")


@tool()
def view_member(ctx: ToolContext, args: ViewArgs) -> MemberView:
    """One admitted member: profile, and the topics their answering agent may be asked about."""
    try:
        member = principals.find_principal(ctx.db, args.handle)
    except principals.ClubError:
        member = None
    if member is None or member.status != "member":
        raise ToolError(f"no member with handle '{args.handle}'; search_directory lists members")
    status = mandates.current(ctx.db, ctx.key, member.id)
    body = status.body if status.valid else None
    return MemberView(
        handle=member.handle,
        name=member.name,
        bio=member.bio,
        tags=list(member.tags),
        admitted_at=member.admitted_at,
        askable=body is not None,
        topics=body.topics if body else [],
        quotable=body.quotable if body else False,
    )
