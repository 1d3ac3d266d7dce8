"""`parley`: the admin command line. A public interface: scripts rely on its output.

`parley token mint` prints the token alone on stdout (details go to stderr), so
`TOKEN=$(parley token mint bruno)` works.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from datetime import timedelta
from pathlib import Path

from server.chokepoint import audit
from server.identity import principals
from server.cli import demo
from server.identity import mandates
from server.identity import tokens
from server.settings import Settings
from server.identity.mandates import MandateError, SigningKey
from server.manifest.loading import ManifestError, load_manifest
from server.identity.passwords import PasswordError
from server.store.database import open_db


class _Context:
    """Store, key and manifest, opened lazily so `parley doctor` needs none of them."""

    def __init__(self) -> None:
        self.settings = Settings.from_env()
        self.manifest = load_manifest(self.settings.manifest_path)
        self.db = open_db(self.settings.db_path)
        self.key = SigningKey.load_or_create(self.settings.keys_dir)


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _csv(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.manifest.check import check

    settings = Settings.from_env()
    errors = [finding for finding in check(settings.manifest_path) if finding.level == "error"]
    if errors:
        for finding in errors:
            _err(f"{settings.manifest_path}: {finding}")
        _err("not serving: fix the manifest (parley tools check shows every finding)")
        return 1
    host = args.host or settings.host
    port = args.port or settings.port
    os.environ["PARLEY_HOST"], os.environ["PARLEY_PORT"] = host, str(port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run("server.app:create_app", factory=True, host=host, port=port, log_level="info")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    ctx = _Context()
    prepared = demo.prepare(ctx.db, ctx.key, ctx.manifest)
    url = ctx.settings.mcp_url
    if prepared is None:
        print(f"Demo club already prepared in {ctx.settings.db_path}.")
        print(f"MCP endpoint: {url}")
        print("Tokens are shown once, at mint. Mint new ones with: parley token mint bruno   (member)")
        print("                                                    parley token mint carla   (applicant)")
        return 0
    print(f"Demo club prepared in {ctx.settings.db_path} (members ana, bruno; applicant carla).")
    print(f"MCP endpoint: {url}")
    print("These tokens are shown once and never again:")
    print("  guest lane:     no token (send no Authorization header)")
    print(f"  applicant lane: {prepared.applicant.token}   (carla's agent)")
    print(f"  member lane:    {prepared.member.token}   (bruno's agent)")
    print(f"  principal:      {prepared.steward_principal.token}   (ana's own token; she is a steward)")
    print("Sign-in passwords (console and OAuth consent), also shown once:")
    for handle, password in prepared.passwords.items():
        print(f"  {handle:<6} {password}")
    print("Connect with header  Authorization: Bearer <token>;  check with  parley doctor URL --token <token>")
    return 0


def cmd_principal(args: argparse.Namespace) -> int:
    ctx = _Context()
    if args.action == "add":
        principal = principals.add_principal(
            ctx.db,
            args.handle,
            args.name or args.handle,
            status="member" if args.member else "applicant",
            steward=args.steward,
            bio=args.bio or "",
            tags=_csv(args.tags) or [],
        )
        agent_id = principals.add_agent(ctx.db, principal.handle)
        del agent_id
        print(f"added {principal.handle} ({principal.status}) with agent '{principals.DEFAULT_AGENT}'")
        print(f"next: parley mandate sign {principal.handle} --topics ...   then   parley token mint {principal.handle}")
    elif args.action == "admit":
        principal = principals.set_status(ctx.db, args.handle, "member")
        print(f"{principal.handle} is now a member")
    elif args.action == "suspend":
        principal = principals.set_status(ctx.db, args.handle, "suspended")
        print(f"{principal.handle} is suspended; every token of theirs is refused from the next request")
    elif args.action == "password":
        if args.stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            import getpass

            password = getpass.getpass(f"new password for {args.handle}: ")
        principals.set_password(ctx.db, args.handle, password)
        print(f"password set for {args.handle}")
    elif args.action == "list":
        for row in ctx.db.query("SELECT handle, name, status, steward FROM principals ORDER BY handle"):
            print(f"{row['handle']:<16} {row['status']:<10} {'steward' if row['steward'] else '':<8} {row['name']}")
    return 0


def cmd_agent(args: argparse.Namespace) -> int:
    ctx = _Context()
    if args.action == "add":
        principals.add_agent(ctx.db, args.handle, args.name)
        print(f"added agent '{args.name}' for {args.handle}")
    elif args.action == "revoke":
        principals.revoke_agent(ctx.db, args.handle, args.name)
        print(f"revoked agent '{args.name}' of {args.handle}: its tokens and grants are refused from the next request")
    elif args.action == "bind":
        if not ctx.settings.oauth_issuer:
            _err("set PARLEY_OAUTH_ISSUER first: binding maps an external issuer's subject to an agent")
            return 1
        agent_id, _ = principals.find_agent(ctx.db, args.handle, args.name)
        ctx.db["external_subjects"].insert(
            {"issuer": ctx.settings.oauth_issuer, "subject": args.subject, "agent_id": agent_id}, replace=True
        )
        print(f"subject '{args.subject}' of {ctx.settings.oauth_issuer} now acts as {args.handle}'s agent '{args.name}'")
    return 0


def cmd_token(args: argparse.Namespace) -> int:
    ctx = _Context()
    if args.action == "revoke":
        public_id = tokens.revoke(ctx.db, args.reference)
        if public_id is None:
            _err("no such token (give its id, like tok_0123abcd4567, or the token itself)")
            return 1
        print(f"revoked {public_id}")
        return 0
    principal = principals.find_principal(ctx.db, args.handle)
    requested = _csv(args.scopes)
    if args.principal:
        allowed = frozenset(ctx.manifest.scopes)
        agent_id = None
    else:
        allowed = ctx.manifest.agent_scopes
        agent_id, _ = principals.find_agent(ctx.db, principal.handle, args.agent)
    scopes = frozenset(requested) if requested is not None else allowed
    unknown = sorted(scopes - frozenset(ctx.manifest.scopes))
    if unknown:
        _err(f"unknown scope(s): {', '.join(unknown)}")
        return 1
    withheld = sorted(scopes - allowed)
    if withheld:
        _err(f"an agent token can never hold {', '.join(withheld)}: an agent that can widen its own mandate has no mandate")
        return 1
    ttl = timedelta(seconds=args.ttl_seconds) if args.ttl_seconds else None
    minted = tokens.mint(ctx.db, principal_id=principal.id, agent_id=agent_id, scopes=scopes, ttl=ttl)
    print(minted.token)
    _err(f"token id {minted.public_id}; scopes {', '.join(minted.scopes)}; shown once, stored only as a hash")
    return 0


def cmd_mandate(args: argparse.Namespace) -> int:
    ctx = _Context()
    principal = principals.find_principal(ctx.db, args.handle)
    if args.action == "show":
        status = mandates.current(ctx.db, ctx.key, principal.id)
        out = {"state": status.state, "description": status.describe()}
        if status.body is not None:
            out["mandate"] = status.body.model_dump()
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0 if status.valid else 1
    lane = "member" if principal.status == "member" else "applicant"
    body = mandates.amend(
        ctx.db,
        ctx.key,
        principal_id=principal.id,
        known_scopes=frozenset(ctx.manifest.scopes),
        agent_scopes=ctx.manifest.agent_scopes,
        topics=_csv(args.topics),
        reveal=_csv(args.reveal),
        quotable=args.quotable,
        scopes=_csv(args.scopes),
        valid_for=timedelta(days=args.days),
        default_scopes=sorted(ctx.manifest.ceiling(lane) & ctx.manifest.agent_scopes),
    )
    print(f"signed mandate v{body.version} for {principal.handle}: scopes {', '.join(body.scopes) or 'none'}")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    ctx = _Context()
    for row in audit.tail(ctx.db, args.n):
        print(
            f"{row['ts']} {row['lane']:<9} {row['principal'] or '-':<12} {row['agent'] or '-':<12} "
            f"{row['tool']:<18} {row['outcome']:<14} {row['duration_ms']:.2f}ms"
            + (f"  rule: {row['rule']}" if row["rule"] else "")
        )
    return 0


def cmd_oauth(args: argparse.Namespace) -> int:
    from server.oauth.keys import KeyRing

    settings = Settings.from_env()
    if not settings.embedded_issuer:
        _err(f"this club uses the external issuer {settings.oauth_issuer}; its keys are managed there")
        return 1
    ring = KeyRing(settings.keys_dir)
    if args.action == "rotate-key":
        key = ring.rotate()
        print(f"new signing key {key.kid}; earlier keys stay published until retired")
    elif args.action == "retire-key":
        if not args.kid:
            _err("parley oauth retire-key needs the key id (see: parley oauth keys)")
            return 2
        try:
            ring.retire(args.kid)
        except (KeyError, ValueError) as exc:
            _err(f"error: {exc.args[0]}")
            return 1
        print(f"retired {args.kid}: tokens it signed are refused from the next request")
    else:
        for kid in ring.kids:
            print(f"{kid}{'   (signing)' if kid == ring.current.kid else ''}")
    return 0


def cmd_vocabulary(args: argparse.Namespace) -> int:
    from server.router import vocabulary

    if args.action == "record":
        try:
            digests = vocabulary.record()
        except vocabulary.VocabularyError as exc:
            _err(f"error: {exc}")
            return 1
        for name, digest in digests.items():
            print(f"recorded {name} {digest}")
        return 0
    failed = 0
    for language in ("en", "pt-BR"):
        try:
            print(f"{language}: {vocabulary.load(language).digest}")
        except vocabulary.VocabularyError as exc:
            _err(f"error: {exc}")
            failed = 1
    return failed


def cmd_plan(args: argparse.Namespace) -> int:
    from server import tools as registry
    from server.chokepoint.chokepoint import Chokepoint
    from server.router import plan, vocabulary

    manifest = load_manifest(Settings.from_env().manifest_path)
    chokepoint = Chokepoint(None, None, manifest, None, registry.load_all())
    catalogue = chokepoint.catalogue_for(tuple(manifest.tools))
    result = plan(args.turn, catalogue, args.language, vocabulary.load(args.language))
    print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    return 0


def _condition(text: str) -> dict:
    """'amount is at most 500' → a builder condition; a value like subject.limit compares with an attribute."""
    from server.chokepoint.rules import OPERATORS

    ops = sorted({op for by_type in OPERATORS.values() for op in by_type}, key=len, reverse=True)
    for op in ops:
        marker = f" {op}"
        if marker in f" {text} " and text.find(f" {op}") > 0:
            field, _, rest = text.partition(f" {op}")
            rest = rest.strip()
            condition: dict = {"field": field.strip(), "op": op}
            if not rest:
                return condition
            if rest.startswith(("subject.", "resource.")):
                condition["attribute"] = rest
            elif rest.startswith("[") and rest.endswith("]"):
                condition["value"] = [_scalar(item.strip()) for item in rest[1:-1].split(",") if item.strip()]
            else:
                condition["value"] = _scalar(rest)
            return condition
    raise ValueError(f"no operator in '{text}' (e.g. 'amount is at most 500')")


def _scalar(text: str):
    text = text.strip().strip('"').strip("'")
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _rulebook():
    from server import tools as registry
    from server.chokepoint.chokepoint import Chokepoint

    ctx = _Context()
    return ctx, Chokepoint(ctx.db, ctx.key, ctx.manifest, ctx.settings, registry.load_all()).rulebook


def cmd_rules(args: argparse.Namespace) -> int:
    from server.chokepoint.rules import RuleDecl, RuleError

    ctx, book = _rulebook()
    try:
        if args.action == "list":
            for row in book.listing():
                print(f"{row['id']:<12} {row['state']:<9} {row['binding']:<40} {row['name']}\n{'':<12} reads as: "
                      f"{row['reads_as']}")
        elif args.action == "draft":
            if not (args.agent and args.tool and args.name) or bool(args.when) == bool(args.cel):
                _err("parley rules draft needs --agent, --tool, --name, and either --when (one or more) or --cel")
                return 2
            decl = RuleDecl(name=args.name, binding={"agent": args.agent, "tool": args.tool},
                            match="any" if args.any else "all",
                            conditions=[_condition(w) for w in args.when or []], cel=args.cel)
            ids = book.draft(decl)
            print(f"drafted {', '.join(f'store:{i}' for i in ids)}: {book.compile(decl, 'draft')[0].reads_as}")
            print("publish it with: parley rules publish " + " ".join(str(i) for i in ids))
        elif args.action == "publish":
            published = book.publish(int(str(args.id).removeprefix("store:")) if args.id else None)
            print(f"published {', '.join(f'store:{i}' for i in published) or 'nothing (no drafts)'}")
        elif args.action == "remove":
            if not args.id:
                _err("parley rules remove needs the rule id (store:N, see parley rules list)")
                return 2
            book.remove(int(str(args.id).removeprefix("store:")))
            print(f"removed {args.id}")
    except (RuleError, ValueError) as exc:
        _err(f"error: {exc}")
        return 1
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    from server.manifest.check import check

    path = Path(args.manifest) if args.manifest else Settings.from_env().manifest_path
    findings = check(path)
    for finding in findings:
        print(f"{path}: {finding}")
    errors = sum(1 for f in findings if f.level == "error")
    warned = len(findings) - errors
    print(f"{path}: {errors} error(s), {warned} warning(s)")
    return 1 if errors or (args.strict and warned) else 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from server.cli import doctor

    token = args.token or os.environ.get("PARLEY_TOKEN") or None
    return doctor.run(args.url, token, args.expect, args.json)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="parley", description="Parley: an MCP club for agents and their principals.")
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="serve MCP at /mcp (PARLEY_PORT, default 8765)")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("demo", help="prepare the demo club in an empty store and print its tokens once")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("principal", help="add, admit, suspend or list principals")
    p.add_argument("action", choices=["add", "admit", "suspend", "password", "list"])
    p.add_argument("handle", nargs="?")
    p.add_argument("--name")
    p.add_argument("--member", action="store_true", help="add as an admitted member")
    p.add_argument("--steward", action="store_true")
    p.add_argument("--bio")
    p.add_argument("--tags", help="comma-separated")
    p.add_argument("--stdin", action="store_true", help="with password: read it from standard input")
    p.set_defaults(func=cmd_principal)

    p = sub.add_parser("agent", help="add an agent to a principal")
    p.add_argument("action", choices=["add", "revoke", "bind"])
    p.add_argument("handle")
    p.add_argument("name")
    p.add_argument("--subject", help="with bind: the external issuer's 'sub' that acts as this agent")
    p.set_defaults(func=cmd_agent)

    p = sub.add_parser("token", help="mint or revoke tokens")
    tsub = p.add_subparsers(dest="action", required=True)
    m = tsub.add_parser("mint", help="mint a token; prints it alone on stdout")
    m.add_argument("handle")
    m.add_argument("--agent", help="the agent's name (default: the principal's first agent)")
    m.add_argument("--principal", action="store_true", help="the principal's own token, not an agent's")
    m.add_argument("--scopes", help="comma-separated subset (default: every scope an agent may hold)")
    m.add_argument("--ttl-seconds", type=int, help="expire after this many seconds")
    m.set_defaults(func=cmd_token)
    r = tsub.add_parser("revoke", help="revoke by token id or by the token itself")
    r.add_argument("reference")
    r.set_defaults(func=cmd_token)

    p = sub.add_parser("mandate", help="show or sign a principal's mandate")
    p.add_argument("action", choices=["show", "sign"])
    p.add_argument("handle")
    p.add_argument("--topics", help="comma-separated; replaces the current topics")
    p.add_argument("--reveal", help="comma-separated visibilities: public, members")
    p.add_argument("--scopes", help="comma-separated scope ceiling for the principal's agents")
    quotable = p.add_mutually_exclusive_group()
    quotable.add_argument("--quotable", dest="quotable", action="store_true", default=None)
    quotable.add_argument("--not-quotable", dest="quotable", action="store_false")
    p.add_argument("--days", type=int, default=365, help="valid for this many days (default 365)")
    p.set_defaults(func=cmd_mandate)

    p = sub.add_parser("audit", help="read the audit log")
    p.add_argument("action", choices=["tail"])
    p.add_argument("-n", type=int, default=20)
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("oauth", help="the embedded authorization server's signing keys")
    p.add_argument("action", choices=["keys", "rotate-key", "retire-key"])
    p.add_argument("kid", nargs="?")
    p.set_defaults(func=cmd_oauth)

    p = sub.add_parser("vocabulary", help="check the router's vocabulary files, or record their digests")
    p.add_argument("action", choices=["check", "record"])
    p.set_defaults(func=cmd_vocabulary)

    p = sub.add_parser("plan", help="plan a turn against the whole club catalogue (for trying the router)")
    p.add_argument("turn")
    p.add_argument("--language", choices=["en", "pt-BR"], default="en")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("rules", help="list, draft, publish or remove rules on tool calls")
    p.add_argument("action", choices=["list", "draft", "publish", "remove"])
    p.add_argument("id", nargs="?", help="with publish/remove: the rule's id (N or store:N)")
    p.add_argument("--agent")
    p.add_argument("--tool")
    p.add_argument("--name")
    p.add_argument("--when", action="append", help="a condition, e.g. 'amount is at most 500'; repeat for more")
    p.add_argument("--any", action="store_true", help="allow when any condition holds (default: all)")
    p.add_argument("--cel", help="a CEL expression instead of conditions")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("tools", help="check the manifest: errors and warnings with their lines")
    p.add_argument("action", choices=["check"])
    p.add_argument("--manifest", help="a manifest file (default: PARLEY_MANIFEST or manifests/principals.yaml)")
    p.add_argument("--strict", action="store_true", help="fail on warnings too")
    p.set_defaults(func=cmd_tools)

    p = sub.add_parser("doctor", help="ask an endpoint which lane a credential gets, and why")
    p.add_argument("url")
    p.add_argument("--token", help="the bearer token (or set PARLEY_TOKEN)")
    p.add_argument("--expect", choices=list(("guest", "applicant", "member")), help="fail if the lane is lower")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_doctor)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "principal" and args.action != "list" and not args.handle:
        _err(f"parley principal {args.action} needs a HANDLE")
        return 2
    try:
        return args.func(args)
    except (principals.ClubError, MandateError, ManifestError, PasswordError) as exc:
        _err(f"error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
