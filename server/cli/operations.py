"""`parley audit`, `oauth`, `tools`, `vocabulary` and `plan`: reading and checking a club.

Each command imports what it uses when it runs: `parley plan --help` loads no router.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

from server.cli.context import Context, UsageError, add_json, command, emit_json, err

if TYPE_CHECKING:
    from server.keys.oauth import KeyRing


def audit_tail(args: argparse.Namespace) -> int:
    from server.chokepoint import audit
    from server.chokepoint.audit import safe_name
    from server.identity.principals import acted_through
    from server.store.audit import AuditEntry

    def acted(row: AuditEntry) -> str:  # a guest's call has no principal to act for
        return acted_through(row.agent or None, yours=False) if row.principal else "-"

    if not 1 <= args.n <= 10_000:
        raise UsageError("-n takes 1 to 10000")
    rows = [  # stored safe already; older rows are cleaned on the way out
        replace(row, tool=safe_name(row.tool))
        for row in audit.tail(Context().db, args.n, args.principal)
    ]
    if args.json:
        emit_json([asdict(row) for row in rows])
        return 0
    for row in rows:
        print(
            f"{row.ts} {row.lane:<9} {row.principal or '-':<12} {acted(row):<15} "
            f"{row.tool:<18} {row.outcome:<14} {row.duration_ms:.2f}ms"
            + (f"  rule: {row.rule}" if row.rule else "")
        )
    return 0


def _ring(ctx: Context) -> KeyRing:
    """The embedded issuer's keys; retirements are kept in the store, so they hold for every process."""
    from server.keys.oauth import KeyRing

    settings = ctx.settings
    if not settings.embedded_issuer:
        raise UsageError(
            f"this club uses the external issuer {settings.oauth_issuer}; its keys are managed there"
        )
    return KeyRing(settings.keys_dir, db=ctx.db, create=not settings.shared_store)


def oauth_keys(args: argparse.Namespace) -> int:
    ring = _ring(Context())
    rows = [{"kid": kid, "signing": kid == ring.current.kid} for kid in ring.kids]
    if args.json:
        emit_json(rows)
    else:
        for row in rows:
            print(f"{row['kid']}{'   (signing)' if row['signing'] else ''}")
    return 0


def oauth_rotate(args: argparse.Namespace) -> int:
    from server.cluster.keyfolder import cluster_record
    from server.store.migrations import migrate

    ctx = Context()
    key = _ring(ctx).rotate()
    print(f"new signing key {key.kid}; earlier keys stay published until retired")
    if ctx.settings.shared_store:
        # the cluster's record follows the folder; every server started from now on must have this key
        migrate(ctx.db, cluster_record(ctx.settings.keys_dir, ctx.settings.manifest_path))
        err(
            f"recorded the new key's fingerprint; restart the other processes ({command()} serve) with this keys "
            "folder"
        )
    return 0


def oauth_retire(args: argparse.Namespace) -> int:
    try:
        _ring(Context()).retire(args.kid)
    except (KeyError, ValueError) as exc:
        raise UsageError(f"{exc.args[0]} (parley oauth keys lists them)") from None
    print(f"retired {args.kid}: tokens it signed are refused from the next request")
    return 0


def tools_check(args: argparse.Namespace) -> int:
    from server.cli.rules import store_findings
    from server.cli.serving import findings
    from server.settings import Settings

    path = Path(args.manifest) if args.manifest else Settings.from_env().manifest_path
    found = findings(path) + store_findings(
        path
    )  # the store's rules, checked against this manifest
    errors = sum(1 for f in found if f.level == "error")
    if args.json:
        emit_json({"manifest": str(path), "findings": [f.__dict__ for f in found]})
    else:
        for finding in found:
            print(f"{path}: {finding}")
        print(f"{path}: {errors} error(s), {len(found) - errors} warning(s)")
    return 1 if errors or (args.strict and len(found) > errors) else 0


def vocabulary_check(args: argparse.Namespace) -> int:
    from server.router import vocabulary
    from server.router.reader import LANGUAGES

    failed = 0
    for language in LANGUAGES:
        try:
            print(f"{language}: {vocabulary.load(language).digest}")
        except vocabulary.VocabularyError as exc:
            err(f"error: {exc}")
            failed = 1
    return failed


def vocabulary_record(args: argparse.Namespace) -> int:
    from server.router import vocabulary

    try:
        digests = vocabulary.record()
    except vocabulary.VocabularyError as exc:
        err(f"error: {exc}")
        return 1
    for name, digest in digests.items():
        print(f"recorded {name} {digest}")
    return 0


def plan_command(args: argparse.Namespace) -> int:
    from server import tools
    from server.chokepoint.chokepoint import Catalogues
    from server.router import plan as route
    from server.router import vocabulary
    from server.router.reader import LANGUAGES

    if (
        args.language not in LANGUAGES
    ):  # checked here: the router's vocabulary is not loaded for --help
        raise UsageError(f"--language takes {' or '.join(LANGUAGES)}, not '{args.language}'")
    manifest = Context().manifest
    catalogue = Catalogues(tools.definitions(manifest))(tuple(manifest.tools))
    result = route(args.turn, catalogue, args.language, vocabulary.load(args.language))
    print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("audit", help="read the audit log")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "tail", help="the newest tools/call rows: who, tool, outcome, never values"
    )
    s.add_argument("-n", type=int, default=20, help="how many rows (default 20)")
    s.add_argument("--principal", help="only this principal's agents' calls")
    add_json(s)
    s.set_defaults(func=audit_tail)
    p = sub.add_parser("oauth", help="the embedded authorization server's signing keys")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser("keys", help="published signing keys; the newest signs")
    add_json(s)
    s.set_defaults(func=oauth_keys)
    s = actions.add_parser("rotate-key", help="a new signing key; earlier ones stay published")
    s.set_defaults(func=oauth_rotate)
    s = actions.add_parser("retire-key", help="unpublish a key: every token it signed is refused")
    s.add_argument("kid", help="the key id (parley oauth keys lists them)")
    s.set_defaults(func=oauth_retire)
    p = sub.add_parser("tools", help="check the manifest: errors and warnings with their lines")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser("check", help="every error and warning, each with its line")
    s.add_argument(
        "--manifest", help="a manifest file (default: PARLEY_MANIFEST or the packaged club)"
    )
    s.add_argument("--strict", action="store_true", help="fail on warnings too")
    add_json(s)
    s.set_defaults(func=tools_check)
    p = sub.add_parser(
        "vocabulary", help="check the router's vocabulary files, or record their digests"
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser(
        "check", help="both vocabulary files load and match their recorded digests"
    )
    s.set_defaults(func=vocabulary_check)
    s = actions.add_parser("record", help="record the digests after a reviewed edit")
    s.set_defaults(func=vocabulary_record)
    p = sub.add_parser(
        "plan", help="plan a turn against the whole club catalogue (for trying the router)"
    )
    p.add_argument("turn", help="what the person said, verbatim")
    p.add_argument(
        "--language",
        default="en",
        help="the turn's language (default en; parley vocabulary check lists them)",
    )
    p.set_defaults(func=plan_command)
