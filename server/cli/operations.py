"""`parley serve`, `demo`, `init`, `doctor`, `audit`, `oauth`, `tools`, `vocabulary` and `plan`."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from server import tools
from server.chokepoint.audit import safe_name
from server.chokepoint.chokepoint import Catalogues
from server.chokepoint.rulebook import manifest_rule_problems
from server.cli import demo, doctor
from server.cli.announce import announce_when_answering, drop_early_banner
from server.cli.context import Context, UsageError, add_json, command, emit_json, err
from server.cli.rules import store_findings, stored_rule_findings
from server.cluster.keyfolder import check_cluster, cluster_record
from server.http import request_log
from server.http.head_limit import BoundedHead
from server.manifest.check import Finding, check
from server.manifest.schema import Manifest, Problem
from server.oauth.keys import KeyRing
from server.router import plan as route
from server.router import vocabulary
from server.router.reader import LANGUAGES
from server.settings import Settings
from server.store.migrations import migrate


def _rule_problems(manifest: Manifest) -> list[Problem]:
    try:
        schemas = tools.input_schemas(manifest)
    except Exception as exc:  # a manifest naming a tool no one implements: reported as its problem
        return [Problem(("tools",), str(exc))]
    return manifest_rule_problems(manifest, schemas)


def findings(path: Path) -> list[Finding]:
    return check(path, more=_rule_problems)


# uvicorn's supervisor kills a worker that does not answer its ping within this many seconds, and
# waits as long for a replacement to start on SIGHUP. A worker answers pings from a thread as soon as
# its process runs (its `__main__`, server.cli.main, imports nothing heavy), but importing and building
# the club takes 6-8 s on a loaded 2-core machine: uvicorn's default of 5 s killed workers in a loop.
WORKER_HEALTH_CHECK_SECONDS = 30


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = Settings.from_env()
    errors = [finding for finding in findings(settings.manifest_path) if finding.level == "error"]
    if errors:
        for finding in errors:
            err(f"{settings.manifest_path}: {finding}")
        err(f"not serving: fix the manifest ({command()} tools check shows every finding)")
        return 1
    if args.workers < 1 or args.workers > 64:
        raise UsageError("--workers takes 1 to 64")
    if args.workers > 1 and not settings.shared_store:
        raise UsageError(
            "several worker processes need PostgreSQL (set PARLEY_DATABASE_URL): an SQLite store's "
            "sessions and notifications belong to one process"
        )
    if args.workers > 1 and not settings.stateless:
        raise UsageError(
            "several worker processes need PARLEY_SESSIONS=stateless: a session pinned to one worker "
            "answers 404 on the others"
        )
    ctx = Context()
    db = ctx.db  # refuse a store that does not exist (naming it) or a schema that is not current
    if settings.shared_store:
        check_cluster(
            db, settings.keys_dir, settings.manifest_path
        )  # say it here, not once per worker
    for finding in stored_rule_findings(
        ctx.manifest, db
    ):  # served, failing closed: say so at start
        err(f"{settings.store_name}: {finding}")
    db.close()
    host = args.host or settings.host
    port = args.port or settings.port
    os.environ["PARLEY_HOST"], os.environ["PARLEY_PORT"] = host, str(port)
    made_metrics_dir = None
    if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # /metrics adds up every worker's counts from this folder, removed when serving ends
        made_metrics_dir = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(
            prefix="parley-metrics-"
        )
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if args.access_log:
        request_log.install()
    drop_early_banner()
    served = (
        Settings.from_env()
    )  # the URLs follow the host and port chosen above, or PARLEY_PUBLIC_URL
    announce_when_answering(
        host,
        port,
        [f"Parley serving MCP at {served.mcp_url}", f"Console: {served.public_url}/console"],
    )
    # forwarded headers are believed only from the proxies the operator names (uvicorn's own default
    # trusts 127.0.0.1: anything on the host could then rotate X-Forwarded-For past per-address limits)
    proxies = args.forwarded_allow_ips or settings.forwarded_allow_ips
    try:
        uvicorn.run(
            "server.app:create_app",
            proxy_headers=proxies is not None,
            forwarded_allow_ips=proxies or "",
            factory=True,
            host=host,
            port=port,
            log_level="info",
            access_log=args.access_log,
            workers=args.workers if args.workers > 1 else None,
            timeout_worker_healthcheck=WORKER_HEALTH_CHECK_SECONDS,
            http=BoundedHead,
        )
    finally:
        if made_metrics_dir is not None:
            shutil.rmtree(made_metrics_dir, ignore_errors=True)
    return 0


def demo_command(args: argparse.Namespace) -> int:
    ctx = Context(create_store=True)
    prepared = demo.prepare(ctx.db, ctx.key, ctx.manifest)
    settings = ctx.settings
    console = f"{settings.public_url}/console"
    # On PostgreSQL the store's line names the database's port too: say which one Parley serves on.
    serving = (
        f"Serve it with  {command()} serve  (it serves on port {settings.port}; "
        "PARLEY_PORT or --port changes it)"
    )
    if prepared is None:
        print(f"Demo club already prepared in {settings.store_name}.")
        print(serving)
        print(f"MCP endpoint: {settings.mcp_url}")
        print(f"Console:      {console}")
        print("Tokens and passwords are shown once, when made. New ones:")
        print(f"  {command()} token mint bruno          (a member's agent token)")
        print(f"  {command()} token mint carla          (an applicant's agent token)")
        print(f"  {command()} principal password ana    (a new console password for ana)")
        return 0
    print(f"Demo club prepared in {settings.store_name} (members ana, bruno; applicant carla).")
    print(serving)
    print(f"MCP endpoint: {settings.mcp_url}")
    print(f"Console:      {console}")
    print("These tokens are shown once and never again:")
    print("  guest lane:     no token (send no Authorization header)")
    print(f"  applicant lane: {prepared.applicant.token}   (carla's agent)")
    print(f"  member lane:    {prepared.member.token}   (bruno's agent)")
    print(
        f"  principal:      {prepared.steward_principal.token}   (ana's own token; she is a steward)"
    )
    print(f"Console sign-in at {console}, passwords also shown once:")
    for handle, password in prepared.passwords.items():
        print(f"  {handle:<6} {password}")
    print(
        f"Connect with header  Authorization: Bearer <token>;  check with  {command()} doctor --token <token>"
    )
    return 0


def init(args: argparse.Namespace) -> int:
    ctx = Context(create_store=True)
    existed = ctx.settings.shared_store or ctx.settings.db_path.exists()
    ctx.key  # noqa: B018 - creates the store and the mandate-signing key beside it
    place = ctx.settings.store_name
    if ctx.settings.shared_store:
        print(f"Club store ready at {place} (schema migrated, keys in {ctx.settings.keys_dir})")
    else:
        print(f"{'Store already there' if existed else 'Created an empty club store'} at {place}")
    err(f"next: {command()} principal add HANDLE --member --steward   (the first steward)")
    return 0


def doctor_command(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    url = args.url or settings.mcp_url
    token = args.token if args.token is not None else settings.token
    if token is not None and not token.strip():
        # an empty token is a mistake (an unset shell variable), not a request to be a guest
        raise UsageError(
            f"{'--token' if args.token is not None else 'PARLEY_TOKEN'} is empty; give a token, "
            "or leave it out to ask as a guest"
        )
    return doctor.run(url, token, args.expect, args.json)


def audit_tail(args: argparse.Namespace) -> int:
    from server.chokepoint import audit

    if not 1 <= args.n <= 10_000:
        raise UsageError("-n takes 1 to 10000")
    rows = audit.tail(Context().db, args.n, args.principal)
    for row in rows:
        row["tool"] = safe_name(
            row["tool"]
        )  # stored safe already; older rows are cleaned on the way out
    if args.json:
        emit_json(rows)
        return 0
    for row in rows:
        print(
            f"{row['ts']} {row['lane']:<9} {row['principal'] or '-':<12} {row['agent'] or '-':<12} "
            f"{row['tool']:<18} {row['outcome']:<14} {row['duration_ms']:.2f}ms"
            + (f"  rule: {row['rule']}" if row["rule"] else "")
        )
    return 0


def _ring(ctx: Context) -> KeyRing:
    """The embedded issuer's keys; retirements are kept in the store, so they hold for every process."""
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
    failed = 0
    for language in LANGUAGES:
        try:
            print(f"{language}: {vocabulary.load(language).digest}")
        except vocabulary.VocabularyError as exc:
            err(f"error: {exc}")
            failed = 1
    return failed


def vocabulary_record(args: argparse.Namespace) -> int:
    try:
        digests = vocabulary.record()
    except vocabulary.VocabularyError as exc:
        err(f"error: {exc}")
        return 1
    for name, digest in digests.items():
        print(f"recorded {name} {digest}")
    return 0


def plan_command(args: argparse.Namespace) -> int:
    manifest = Context().manifest
    catalogue = Catalogues(tools.definitions(manifest))(tuple(manifest.tools))
    result = route(args.turn, catalogue, args.language, vocabulary.load(args.language))
    print(json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False))
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve", help="serve MCP at /mcp and the console (PARLEY_PORT, default 8765)"
    )
    p.add_argument("--host", help="the address to listen on (default PARLEY_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="the port (default PARLEY_PORT or 8765)")
    p.add_argument(
        "--workers", type=int, default=1, help="worker processes (more than 1 needs PostgreSQL)"
    )
    p.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        help="the proxies whose X-Forwarded-For is believed, comma-separated "
        "(default PARLEY_FORWARDED_ALLOW_IPS, else none)",
    )
    p.add_argument(
        "--access-log",
        action="store_true",
        help="log every HTTP request (off: it costs throughput; query strings are never logged)",
    )
    p.set_defaults(func=serve)
    p = sub.add_parser(
        "demo", help="prepare the demo club (creating the store) and print its tokens once"
    )
    p.set_defaults(func=demo_command)
    p = sub.add_parser("init", help="create an empty club store and its keys")
    p.set_defaults(func=init)
    p = sub.add_parser("doctor", help="ask an endpoint which lane a credential gets, and why")
    p.add_argument(
        "url", nargs="?", help="the MCP endpoint (default: this machine's, from PARLEY_PORT)"
    )
    p.add_argument("--token", help="the bearer token (or set PARLEY_TOKEN)")
    p.add_argument(
        "--expect", choices=["guest", "applicant", "member"], help="exit 2 if the lane is lower"
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=doctor_command)
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
        "--language", choices=list(LANGUAGES), default="en", help="the turn's language (default en)"
    )
    p.set_defaults(func=plan_command)
