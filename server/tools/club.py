"""The tools every lane sees: what the club is, who you are here, and how to apply."""

from __future__ import annotations

from pydantic import Field

from server.access import Lane, default_scopes, visible_tools
from server.identity.principals import ClubError
from server.store.principals import PrincipalStatus
from server.tools.registry import Args, NoArgs, Output, PureContext, ToolError, WriteContext, tool


class LaneInfo(Output):
    lane: str
    description: str
    how_to_leave: str
    scopes: list[str]
    tools_visible: int = Field(
        description="How many tools an agent in this lane with a full mandate sees."
    )


class AboutClub(Output):
    name: str
    description: str
    how_to_join: str
    lanes: list[LaneInfo]
    tools_total: int
    evidence_kinds: list[str]


@tool(pure=True)
def about_club(ctx: PureContext, args: NoArgs) -> AboutClub:
    """What the club is, how to join, and what each lane (guest, applicant, member) can do.

    Use this first when you do not know the club. `lanes[].tools_visible` is what an agent in that
    lane sees with a full mandate; `how_to_join` is the next step for a guest.
    """
    manifest = ctx.manifest
    lanes = []
    for lane, decl in manifest.lanes.items():
        scopes = default_scopes(manifest, lane)
        lanes.append(
            LaneInfo(
                lane=lane,
                description=decl.description,
                how_to_leave=decl.how_to_leave,
                scopes=sorted(scopes),
                tools_visible=len(visible_tools(manifest, scopes, lane != Lane.GUEST, None)),
            )
        )
    return AboutClub(
        name=manifest.club.name,
        description=manifest.club.description,
        how_to_join=manifest.club.how_to_join,
        lanes=lanes,
        tools_total=len(manifest.tools),
        evidence_kinds=list(manifest.evidence_kinds),
    )


class CredentialInfo(Output):
    sent: bool
    kind: str = Field(description="none, agent_token or principal_token.")
    valid: bool
    token_id: str | None = Field(description="The token's public id (never the secret).")


class MandateInfo(Output):
    state: str = Field(description="valid, missing, invalid_signature, expired or wrong_principal.")
    description: str
    version: int | None


class RuleInfo(Output):
    tool: str
    rule: str
    reads_as: str


class WhoAmI(Output):
    lane: str = Field(description="guest, applicant or member.")
    why: str = Field(description="Why this connection is in this lane.")
    credential: CredentialInfo
    principal: str | None
    principal_status: str | None
    steward: bool
    agent: str | None
    token_scopes: list[str]
    mandate: MandateInfo | None
    effective_scopes: list[str] = Field(
        description="Token scopes ∩ mandate ∩ lane ceiling, computed now."
    )
    tools_visible: list[str]
    tools_hidden: int = Field(description="Tools of the club this connection cannot see.")
    entry_agent: str | None = Field(
        description="Which of the club's agents the entry table chose for this caller."
    )
    rules: list[RuleInfo] = Field(
        description="Rules on this connection's tools: a call that does not meet one is "
        "refused with the rule read as a sentence."
    )
    how_to_leave: str = Field(description="How to reach a wider lane from here.")


@tool(pure=True)
def whoami(ctx: PureContext, args: NoArgs) -> WhoAmI:
    """This connection's lane and why: the credential seen, the principal and agent behind it,
    the signed mandate's state, the effective scopes and how many tools are hidden.

    Call it whenever the tools you see are fewer than you expected: a `guest` lane means no
    credential reached the server.
    """
    caller = ctx.caller
    mandate = caller.mandate
    return WhoAmI(
        lane=caller.lane,
        why=caller.why,
        credential=CredentialInfo(
            sent=caller.verified,
            kind=caller.credential,
            valid=caller.verified,
            token_id=caller.token_public_id,
        ),
        principal=caller.principal,
        principal_status=caller.principal_status,
        steward=caller.steward,
        agent=caller.agent,
        token_scopes=sorted(caller.token_scopes),
        mandate=(
            MandateInfo(
                state=mandate.state,
                description=mandate.describe(),
                version=mandate.body.version if mandate.body else None,
            )
            if mandate is not None
            else None
        ),
        effective_scopes=sorted(caller.scopes),
        tools_visible=list(caller.tools),
        tools_hidden=len(ctx.manifest.tools) - len(caller.tools),
        entry_agent=caller.entry_persona,
        how_to_leave=ctx.manifest.lanes[caller.lane].how_to_leave,
        rules=[RuleInfo(**row) for row in ctx.explain_rules(caller)],
    )


class ApplyArgs(Args):
    handle: str = Field(
        min_length=2,
        max_length=32,
        pattern=r"^[a-z][a-z0-9_-]{1,31}$",
        description="The handle you want: lowercase letters, digits, '-' or '_', starting with a letter.",
    )
    name: str = Field(min_length=1, max_length=120, description="Your principal's name.")
    statement: str = Field(
        min_length=10, max_length=4000, description="Why your principal wants to join."
    )


class Application(Output):
    application_id: int
    handle: str
    status: str
    token: str = Field(
        description="An applicant agent token, shown once and never again. Keep it secret."
    )
    token_id: str
    next_step: str


@tool(writes=True)
def apply(ctx: WriteContext, args: ApplyArgs) -> Application:
    """Submit an application to join the club on behalf of your principal.

    Returns the application id and an applicant agent token, shown only this once: reconnect with
    `Authorization: Bearer <token>` to enter the applicant lane, then log evidence with
    `log_evidence`. A steward reviews the application and admits your principal.
    """
    try:
        applied = ctx.writes.apply(args.handle, args.name, args.statement)
    except ClubError as exc:
        raise ToolError(str(exc)) from None
    return Application(
        application_id=applied.application_id,
        handle=applied.principal.handle,
        status=PrincipalStatus.APPLICANT,
        token=applied.token.token,
        token_id=applied.token.public_id,
        next_step=(
            "Reconnect with 'Authorization: Bearer <token>' to enter the applicant lane, then call "
            "log_evidence to support your application. A steward will review it."
        ),
    )
