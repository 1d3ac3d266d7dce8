"""`parley principal` and `agent`: the club's people and the agents that act for them."""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Callable
from dataclasses import asdict

from server.cli.context import Context, UsageError, add_json, command, csv, err, listing

# Each command imports the club's modules it uses when it runs (`parley token --help` imports none).


# --- principal ---------------------------------------------------------------------------------


def principal_add(args: argparse.Namespace) -> int:
    from server.identity import principals
    from server.identity.principals import PrincipalStatus

    ctx = Context()
    added = principals.add_principal(
        ctx.db,
        args.handle,
        args.name or args.handle,
        status=PrincipalStatus.MEMBER if args.member else PrincipalStatus.APPLICANT,
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
        from server.identity import principals

        changed = principals.set_status(Context().db, args.handle, status)
        print(f"{changed.handle} {said}")
        return 0

    return run


def principal_password(args: argparse.Namespace) -> int:
    from server.identity import principals

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
    from server.store import principals as principal_rows

    rows = [
        {**asdict(row), "steward": bool(row.steward)}
        for row in principal_rows.listing(Context().db)
    ]
    return listing(
        args,
        rows,
        ["handle", "status", "steward", "name", "admitted_at"],
        lambda r: {**r, "steward": "steward" if r["steward"] else ""},
    )


# --- agent -------------------------------------------------------------------------------------


def agent_add(args: argparse.Namespace) -> int:
    from server.identity import principals

    principals.add_agent(Context().db, args.handle, args.name)
    print(f"added agent '{args.name}' for {args.handle}")
    return 0


def agent_list(args: argparse.Namespace) -> int:
    from server.identity import principals
    from server.store import agents as agent_rows

    ctx = Context()
    rows = agent_rows.of_principal(ctx.db, principals.find_principal(ctx.db, args.handle).id)
    return listing(args, [asdict(row) for row in rows], ["id", "name", "created_at", "revoked_at"])


def agent_revoke(args: argparse.Namespace) -> int:
    from server.identity import principals

    principals.revoke_agent(Context().db, args.handle, args.name)
    print(
        f"revoked agent '{args.name}' of {args.handle}: its tokens and grants are refused from the next request"
    )
    return 0


def agent_bind(args: argparse.Namespace) -> int:
    from server.identity import principals

    ctx = Context()
    issuer = ctx.settings.oauth_issuer
    if not issuer:
        raise UsageError(
            "set PARLEY_OAUTH_ISSUER first: binding maps an external issuer's subject to an agent"
        )
    principals.bind_subject(ctx.db, issuer, args.subject, args.handle, args.name)
    print(f"subject '{args.subject}' of {issuer} now acts as {args.handle}'s agent '{args.name}'")
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
