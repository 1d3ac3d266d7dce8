"""`parley principal`, `agent`, `token` and `mandate`: the club's people, their agents and tokens."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from datetime import timedelta

from server.access import default_scopes, lane_of, token_scopes_allowed
from server.cli.context import Context, UsageError, add_json, command, csv, emit_json, err, listing
from server.errors import ParleyError
from server.identity import mandates, principals, tokens
from server.store import agents as agent_rows
from server.store import principals as principal_rows
from server.store import tokens as token_rows


def _scopes(ctx: Context, requested: list[str]) -> frozenset[str]:
    unknown = sorted(set(requested) - set(ctx.manifest.scopes))
    if unknown:
        raise ParleyError(
            f"unknown scope(s): {', '.join(unknown)}; the scopes are: {', '.join(sorted(ctx.manifest.scopes))}"
        )
    return frozenset(requested)


# --- principal ---------------------------------------------------------------------------------


def principal_add(args: argparse.Namespace) -> int:
    ctx = Context()
    added = principals.add_principal(
        ctx.db,
        args.handle,
        args.name or args.handle,
        status="member" if args.member else "applicant",
        steward=args.steward,
        bio=args.bio or "",
        tags=csv(args.tags) or [],
    )
    principals.add_agent(ctx.db, added.handle)
    print(
        f"added {added.handle} ({added.status}{', steward' if added.steward else ''}) with agent "
        f"'{principals.DEFAULT_AGENT}'"
    )
    err(
        f"next: {command()} mandate sign {added.handle} --topics ...   then   {command()} token mint {added.handle}"
    )
    return 0


def principal_status(status: str, said: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        changed = principals.set_status(Context().db, args.handle, status)
        print(f"{changed.handle} {said}")
        return 0

    return run


def principal_password(args: argparse.Namespace) -> int:
    ctx = Context()
    if not args.stdin and not sys.stdin.isatty():
        raise UsageError(
            "no terminal to type the password in: pipe it with --stdin "
            f"(printf '%s\\n' \"$PASSWORD\" | {command()} principal password {args.handle} --stdin)"
        )
    password = (
        sys.stdin.readline().rstrip("\n")
        if args.stdin
        else getpass.getpass(f"new password for {args.handle}: ")
    )
    principals.set_password(ctx.db, args.handle, password)
    print(f"password set for {args.handle}")
    return 0


def principal_list(args: argparse.Namespace) -> int:
    rows = principal_rows.listing(Context().db)
    for row in rows:
        row["steward"] = bool(row["steward"])
    return listing(
        args,
        rows,
        ["handle", "status", "steward", "name", "admitted_at"],
        lambda r: {**r, "steward": "steward" if r["steward"] else ""},
    )


# --- agent -------------------------------------------------------------------------------------


def agent_add(args: argparse.Namespace) -> int:
    principals.add_agent(Context().db, args.handle, args.name)
    print(f"added agent '{args.name}' for {args.handle}")
    return 0


def agent_list(args: argparse.Namespace) -> int:
    ctx = Context()
    rows = agent_rows.of_principal(ctx.db, principals.find_principal(ctx.db, args.handle).id)
    return listing(args, [dict(row) for row in rows], ["id", "name", "created_at", "revoked_at"])


def agent_revoke(args: argparse.Namespace) -> int:
    principals.revoke_agent(Context().db, args.handle, args.name)
    print(
        f"revoked agent '{args.name}' of {args.handle}: its tokens and grants are refused from the next request"
    )
    return 0


def agent_bind(args: argparse.Namespace) -> int:
    ctx = Context()
    issuer = ctx.settings.oauth_issuer
    if not issuer:
        raise UsageError(
            "set PARLEY_OAUTH_ISSUER first: binding maps an external issuer's subject to an agent"
        )
    principals.bind_subject(ctx.db, issuer, args.subject, args.handle, args.name)
    print(f"subject '{args.subject}' of {issuer} now acts as {args.handle}'s agent '{args.name}'")
    return 0


# --- token -------------------------------------------------------------------------------------


def token_mint(args: argparse.Namespace) -> int:
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
    return 0


def token_list(args: argparse.Namespace) -> int:
    ctx = Context()
    rows = token_rows.of_principal(ctx.db, principals.find_principal(ctx.db, args.handle).id)
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
        lambda r: {**r, "scopes": " ".join(r["scopes"])},
    )


def token_revoke(args: argparse.Namespace) -> int:
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
    ctx = Context()
    status = mandates.current(ctx.db, ctx.key, principals.find_principal(ctx.db, args.handle).id)
    out: dict[str, object] = {"state": status.state, "description": status.describe()}
    if status.body is not None:
        out["mandate"] = status.body.model_dump()
    emit_json(out)
    return 0 if status.valid else 1


def mandate_sign(args: argparse.Namespace) -> int:
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
        topics=csv(args.topics),
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
    p = sub.add_parser(
        "principal",
        help="add, list, admit, suspend a principal, or set a password",
        description="The club's people: applicants, members (stewards among them), suspended.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    a = actions.add_parser(
        "add", help="add a principal (an applicant unless --member) with a default agent"
    )
    a.add_argument(
        "handle", help="2 to 32 lowercase letters, digits, '-' or '_', starting with a letter"
    )
    a.add_argument("--name", help="the principal's name (default: the handle)")
    a.add_argument("--member", action="store_true", help="add as an admitted member")
    a.add_argument(
        "--steward", action="store_true", help="a steward reviews applicants in the console"
    )
    a.add_argument("--bio", help="one line about them, shown in the directory")
    a.add_argument("--tags", help="comma-separated tags for the directory")
    a.set_defaults(func=principal_add)
    for name, status, said, helptext in (
        (
            "admit",
            "member",
            "is now a member",
            "applicant → member: existing tokens reach the member lane",
        ),
        (
            "suspend",
            "suspended",
            "is suspended; every token of theirs is refused from the next request",
            "refuse every token and session of this principal from the next request",
        ),
    ):
        s = actions.add_parser(name, help=helptext)
        s.add_argument("handle", help="the principal's handle")
        s.set_defaults(func=principal_status(status, said))
    s = actions.add_parser("password", help="set the password for the console and OAuth sign-in")
    s.add_argument("handle", help="the principal's handle")
    s.add_argument(
        "--stdin", action="store_true", help="read the password from standard input, not a prompt"
    )
    s.set_defaults(func=principal_password)
    s = actions.add_parser("list", help="every principal with status and admission date")
    add_json(s)
    s.set_defaults(func=principal_list)

    p = sub.add_parser(
        "agent",
        help="add, list, revoke or bind a principal's agents",
        description="A principal's agents hold tokens and act for them.",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, func, helptext in (
        ("add", agent_add, "add an agent"),
        ("revoke", agent_revoke, "revoke an agent: its tokens and grants stop working"),
    ):
        s = actions.add_parser(name, help=helptext)
        s.add_argument("handle", help="the principal's handle")
        s.add_argument("name", help="the agent's name")
        s.set_defaults(func=func)
    s = actions.add_parser("list", help="a principal's agents")
    s.add_argument("handle", help="the principal's handle")
    add_json(s)
    s.set_defaults(func=agent_list)
    s = actions.add_parser("bind", help="let an external issuer's subject act as this agent")
    s.add_argument("handle", help="the principal's handle")
    s.add_argument("name", help="the agent's name")
    s.add_argument(
        "--subject", required=True, help="the external issuer's 'sub' claim that acts as this agent"
    )
    s.set_defaults(func=agent_bind)

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
    s.add_argument("--topics", help="comma-separated; replaces the current topics")
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
