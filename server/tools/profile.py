"""The principal's own record: profile, signed mandate, and (principal tokens only) amending it."""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field

from server.identity.mandates import MandateError, MandateStatus
from server.tools.registry import Args, NoArgs, Output, ToolContext, ToolError, WriteContext, tool


class Profile(Output):
    handle: str
    name: str
    status: str
    steward: bool
    bio: str
    tags: list[str]
    created_at: str
    admitted_at: str | None
    agent: str | None = Field(description="The agent this connection acts as, if any.")


@tool()
def my_profile(ctx: ToolContext, args: NoArgs) -> Profile:
    """Your principal's profile in the club: handle, name, status (applicant or member), bio, tags."""
    principal = ctx.reads.profile()
    return Profile(
        handle=principal.handle,
        name=principal.name,
        status=principal.status,
        steward=principal.steward,
        bio=principal.bio,
        tags=list(principal.tags),
        created_at=principal.created_at,
        admitted_at=principal.admitted_at,
        agent=ctx.caller.agent,
    )


class Mandate(Output):
    state: str = Field(description="valid, missing, invalid_signature, expired or wrong_principal.")
    description: str
    version: int | None = None
    topics: list[str] = Field(
        default_factory=list, description="What the answering agent may treat."
    )
    reveal: list[str] = Field(
        default_factory=list, description="Briefing visibilities it may reveal."
    )
    quotable: bool = Field(
        default=False, description="Whether its answers may be quoted with attribution."
    )
    scopes: list[str] = Field(
        default_factory=list, description="The scope ceiling for this principal's agents."
    )
    issued_at: str | None = None
    expires_at: str | None = None


def _mandate_output(status: MandateStatus) -> Mandate:
    body = status.body
    if body is None:
        return Mandate(state=status.state, description=status.describe())
    return Mandate(
        state=status.state,
        description=status.describe(),
        version=body.version,
        topics=body.topics,
        reveal=body.reveal,
        quotable=body.quotable,
        scopes=body.scopes,
        issued_at=body.issued_at,
        expires_at=body.expires_at,
    )


@tool()
def my_mandate(ctx: ToolContext, args: NoArgs) -> Mandate:
    """Your principal's current signed mandate and whether its signature verifies.

    A mandate that is missing, expired or fails verification counts as no mandate: its agents
    then have zero scopes until the principal signs a new one.
    """
    return _mandate_output(ctx.reads.mandate())


class AmendMandateArgs(Args):
    topics: list[str] | None = Field(default=None, max_length=50, description="Replace the topics.")
    reveal: list[str] | None = Field(
        default=None, max_length=2, description="Replace: 'public', 'members'."
    )
    quotable: bool | None = None
    scopes: list[str] | None = Field(
        default=None, max_length=16, description="Replace the scope ceiling."
    )
    valid_days: int | None = Field(
        default=None, ge=1, le=730, description="Days from now until it expires."
    )


@tool(writes=True)
def amend_mandate(ctx: WriteContext, args: AmendMandateArgs) -> Mandate:
    """Amend and re-sign your principal's mandate. Fields left out keep their current values.

    Only a principal's own token can call this; an agent never can. Narrowing takes effect on the
    next request of every token already issued.
    """
    for topic in args.topics or []:
        if not 1 <= len(topic) <= 80:
            raise ToolError("each topic must be 1 to 80 characters")
    try:
        ctx.writes.amend_mandate(
            topics=args.topics,
            reveal=args.reveal,
            quotable=args.quotable,
            scopes=args.scopes,
            valid_for=timedelta(days=args.valid_days) if args.valid_days else None,
        )
    except MandateError as exc:
        raise ToolError(str(exc)) from None
    return _mandate_output(ctx.reads.mandate())
