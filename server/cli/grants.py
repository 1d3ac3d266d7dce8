"""`parley token` and `parley mandate`: what a principal's agents may reach, and the signed terms that
bound it. Each warns or refuses where the console would: a token that reaches nothing, a mandate
with no topics."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from datetime import timedelta
from typing import TYPE_CHECKING

from server.cli.context import (
    Context,
    UsageError,
    add_json,
    command,
    csv,
    emit_json,
    err,
    listing,
)
from server.errors import ParleyError

if TYPE_CHECKING:
    from server.identity.principals import Principal

if TYPE_CHECKING:
    pass


def _scopes(ctx: Context, requested: list[str]) -> frozenset[str]:
    unknown = sorted(set(requested) - set(ctx.manifest.scopes))
    if unknown:
        raise ParleyError(
            f"unknown scope(s): {', '.join(unknown)}; the scopes are: {', '.join(sorted(ctx.manifest.scopes))}"
        )
    return frozenset(requested)


# --- token -------------------------------------------------------------------------------------


def token_mint(args: argparse.Namespace) -> int:
    from server.access import token_scopes_allowed
    from server.identity import principals, tokens

    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    allowed = token_scopes_allowed(ctx.manifest, principal_token=args.principal)
    agent_id = (
        None if args.principal else principals.find_agent(ctx.db, principal.handle, args.agent)[0]
    )
    requested = csv(args.scopes)
    scopes = _scopes(ctx, requested) if requested is not None else allowed
    withheld = sorted(scopes - allowed)
    if withheld:
        raise ParleyError(
            f"an agent token can never hold {', '.join(withheld)}: an agent that can widen its own "
            "mandate has no mandate"
        )
    if args.ttl_seconds is not None and args.ttl_seconds < 1:
        raise UsageError("--ttl-seconds must be at least 1")
    ttl = timedelta(seconds=args.ttl_seconds) if args.ttl_seconds else None
    minted = tokens.mint(
        ctx.db, principal_id=principal.id, agent_id=agent_id, scopes=scopes, ttl=ttl
    )
    print(minted.token)
    err(
        f"token id {minted.public_id}; scopes {', '.join(minted.scopes)}; shown once, stored only as a hash"
    )
    short = _short_reach(ctx, principal, scopes, as_agent=not args.principal)
    if short:
        err(short)
    return 0


def _short_reach(
    ctx: Context, principal: Principal, scopes: frozenset[str], as_agent: bool
) -> str | None:
    """What a new token will not reach on its next request, and why, computed as the chokepoint
    computes it (token ∩ mandate ∩ lane): a warning when the mandate withholds scopes, a note when
    only the applicant's lane does (admission widens it); None when it reaches every scope it holds."""
    from server.access import effective_scopes, lane_of
    from server.identity import mandates
    from server.identity.principals import PrincipalStatus

    handle = principal.handle
    if principal.status not in (PrincipalStatus.APPLICANT, PrincipalStatus.MEMBER):
        return f"warning: {handle} is {principal.status}: every token of theirs is refused"
    mandate = mandates.current(ctx.db, ctx.key, principal.id)
    reach = effective_scopes(
        ctx.manifest, lane_of(principal.status), scopes, mandate.scopes, as_agent
    )
    if reach == scopes:
        return None
    reaches = f"it reaches {', '.join(sorted(reach))} now" if reach else "it reaches no scope now"
    if as_agent and not mandate.valid:
        sign = f"{command()} mandate sign {handle} --topics …"
        return f"warning: {reaches}: {handle}'s mandate: {mandate.describe()} ({sign})"
    if as_agent and scopes - mandate.scopes:
        withheld = ", ".join(sorted(scopes - mandate.scopes))
        return f"warning: {reaches}: {handle}'s mandate does not grant {withheld}"
    return f"note: {reaches}; the rest once {handle} is admitted ({principal.status} now)"


def token_list(args: argparse.Namespace) -> int:
    from server.identity import principals
    from server.store import tokens as token_rows

    ctx = Context()
    rows = [
        asdict(row)
        for row in token_rows.of_principal(
            ctx.db, principals.find_principal(ctx.db, args.handle).id
        )
    ]
    return listing(
        args,
        rows,
        [
            "public_id",
            "label",
            "kind",
            "agent",
            "scopes",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at",
        ],
        lambda r: {
            **r,
            "scopes": " ".join(scopes) if isinstance(scopes := r["scopes"], tuple) else scopes,
        },
    )


def token_revoke(args: argparse.Namespace) -> int:
    from server.identity import tokens

    public_id = tokens.revoke(Context().db, args.reference)
    if public_id is None:
        err(
            "error: no such token (give its id, like tok_0123abcd4567, or the token itself; parley token list HANDLE)"
        )
        return 1
    print(f"revoked {public_id}")
    return 0


# --- mandate -----------------------------------------------------------------------------------


def mandate_show(args: argparse.Namespace) -> int:
    from server.identity import mandates, principals

    ctx = Context()
    status = mandates.current(ctx.db, ctx.key, principals.find_principal(ctx.db, args.handle).id)
    out: dict[str, object] = {"state": status.state, "description": status.describe()}
    if status.body is not None:
        out["mandate"] = status.body.model_dump()
    emit_json(out)
    return 0 if status.valid else 1


def mandate_sign(args: argparse.Namespace) -> int:
    from server.access import default_scopes, lane_of
    from server.identity import mandates, principals

    topics = csv(args.topics)
    if topics == [] and not args.no_topics:
        raise UsageError(
            "--topics is empty: a mandate with no topics leaves the agent nothing to answer, so every "
            "question would go to the principal; name the topics, or give --no-topics to mean it"
        )
    ctx = Context()
    principal = principals.find_principal(ctx.db, args.handle)
    requested = csv(args.scopes)
    if requested is not None:
        _scopes(ctx, requested)
    if args.days is not None and not 1 <= args.days <= 730:
        raise UsageError("--days takes 1 to 730")
    current = mandates.current(ctx.db, ctx.key, principal.id)
    days = args.days if args.days is not None else (None if current.valid else 365)
    body = mandates.amend(
        ctx.db,
        ctx.key,
        principal_id=principal.id,
        known_scopes=frozenset(ctx.manifest.scopes),
        agent_scopes=ctx.manifest.agent_scopes,
        topics=[] if args.no_topics else topics,
        reveal=csv(args.reveal),
        quotable=args.quotable,
        scopes=requested,
        valid_for=timedelta(days=days) if days else None,
        default_scopes=sorted(default_scopes(ctx.manifest, lane_of(principal.status))),
    )
    print(
        f"signed mandate v{body.version} for {principal.handle}: scopes {', '.join(body.scopes) or 'none'}; "
        f"expires {body.expires_at[:10]}"
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("token", help="mint, list or revoke tokens")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser("mint", help="mint a token; prints it alone on stdout")
    s.add_argument("handle", help="the principal's handle")
    s.add_argument("--agent", help="the agent's name (default: the principal's first agent)")
    s.add_argument(
        "--principal", action="store_true", help="the principal's own token, not an agent's"
    )
    s.add_argument(
        "--scopes", help="comma-separated subset (default: every scope an agent may hold)"
    )
    s.add_argument("--ttl-seconds", type=int, help="expire after this many seconds")
    s.set_defaults(func=token_mint)
    s = actions.add_parser("list", help="a principal's tokens (ids, never secrets)")
    s.add_argument("handle", help="the principal's handle")
    add_json(s)
    s.set_defaults(func=token_list)
    s = actions.add_parser("revoke", help="revoke by token id or by the token itself")
    s.add_argument("reference", help="a token id (tok_…) or the token itself")
    s.set_defaults(func=token_revoke)

    p = sub.add_parser("mandate", help="show or sign a principal's mandate")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "show", help="the signed terms as JSON and whether the signature verifies"
    )
    s.add_argument("handle", help="the principal's handle")
    s.set_defaults(func=mandate_show)
    s = actions.add_parser("sign", help="sign a new version; what you leave out carries over")
    s.add_argument("handle", help="the principal's handle")
    topics = s.add_mutually_exclusive_group()
    topics.add_argument("--topics", help="comma-separated; replaces the current topics")
    topics.add_argument(
        "--no-topics",
        action="store_true",
        help="sign with no topics: the agent answers nothing, every question comes to the principal",
    )
    s.add_argument("--reveal", help="comma-separated visibilities: public, members")
    s.add_argument("--scopes", help="comma-separated scope ceiling for the principal's agents")
    quotable = s.add_mutually_exclusive_group()
    quotable.add_argument(
        "--quotable",
        dest="quotable",
        action="store_true",
        default=None,
        help="answers may be quoted with attribution",
    )
    quotable.add_argument(
        "--not-quotable", dest="quotable", action="store_false", help="answers may not be quoted"
    )
    s.add_argument(
        "--days",
        type=int,
        help="valid for this many days from now (default: keep the current expiry; "
        "365 for a first mandate)",
    )
    s.set_defaults(func=mandate_sign)
