"""`parley serve`, `demo`, `init` and `doctor`: a club from nothing to answering, and the check that it does.

Each command imports the server when it runs: `parley serve --help` loads none of it.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import shutil
import socket
import tempfile
from typing import TYPE_CHECKING

from server.cli.context import Context, UsageError, command, err
from server.errors import ParleyError

if TYPE_CHECKING:
    from pathlib import Path

    from server.manifest.check import Finding
    from server.manifest.schema import Manifest, Problem

# uvicorn's supervisor kills a worker that does not answer its ping within this many seconds, and
# waits as long for a replacement to start on SIGHUP. A worker answers pings from a thread as soon as
# its process runs (its `__main__`, server.cli.main, imports nothing heavy), but importing and building
# the club takes 6-8 s on a loaded 2-core machine: uvicorn's default of 5 s killed workers in a loop.
WORKER_HEALTH_CHECK_SECONDS = 30

PORT_CHOICE = "choose another with --port or PARLEY_PORT"


def _rule_problems(manifest: Manifest) -> list[Problem]:
    from server import tools
    from server.chokepoint.rulebook import manifest_rule_problems
    from server.manifest.schema import Problem

    try:
        schemas = tools.input_schemas(manifest)
    except Exception as exc:  # a manifest naming a tool no one implements: reported as its problem
        return [Problem(("tools",), str(exc))]
    return manifest_rule_problems(manifest, schemas)


def findings(path: Path) -> list[Finding]:
    from server.manifest.check import check

    return check(path, more=_rule_problems)


def claim_port(host: str, port: int) -> None:
    """Refuse, in one line, a port something else listens on: checked before anything says "serving",
    with the options uvicorn binds with (SO_REUSEADDR), so a port it would take is never refused."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ParleyError(
                    f"port {port} on {host} is already in use (another server?): {PORT_CHOICE}"
                ) from None
            raise ParleyError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.cli.announce import announce_when_answering, drop_early_banner
    from server.cli.rules import stored_rule_findings
    from server.cluster.keyfolder import check_cluster
    from server.http import request_log
    from server.http.head_limit import BoundedHead
    from server.settings import Settings

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
    host = args.host or settings.host
    port = args.port or settings.port
    claim_port(host, port)  # before the store's checks and the announcement: one line, nothing else
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
    from server.cli import demo

    ctx = Context(create_store=True)
    prepared = demo.prepare(ctx.db, ctx.key, ctx.manifest)
    settings = ctx.settings
    console = f"{settings.public_url}/console"
    # `scripts/serve` serves right after (--then-serve): serve announces its own address once it answers.
    if args.then_serve:
        addresses = ["Serving it next: the address follows once it answers."]
        sign_in = "Console sign-in"
    else:
        # On PostgreSQL the store's line names the database's port too: say which one Parley serves on.
        addresses = [
            f"Serve it with  {command()} serve  (it serves on port {settings.port}; "
            f"PARLEY_PORT or --port changes it)",
            f"MCP endpoint: {settings.mcp_url}",
            f"Console:      {console}",
        ]
        sign_in = f"Console sign-in at {console}"
    if prepared is None:
        print(f"Demo club already prepared in {settings.store_name}.")
        print("\n".join(addresses))
        print("Tokens and passwords are shown once, when made. New ones:")
        print(f"  {command()} token mint bruno          (a member's agent token)")
        print(f"  {command()} token mint carla          (an applicant's agent token)")
        print(f"  {command()} principal password ana    (a new console password for ana)")
        return 0
    print(f"Demo club prepared in {settings.store_name} (members ana, bruno; applicant carla).")
    print("\n".join(addresses))
    print("These tokens are shown once and never again:")
    print("  guest lane:     no token (send no Authorization header)")
    print(f"  applicant lane: {prepared.applicant.token}   (carla's agent)")
    print(f"  member lane:    {prepared.member.token}   (bruno's agent)")
    print(
        f"  principal:      {prepared.steward_principal.token}   (ana's own token; she is a steward)"
    )
    print(f"{sign_in}, passwords also shown once:")
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
    from server.cli import doctor
    from server.settings import Settings

    settings = Settings.from_env()
    url = args.url or settings.mcp_url
    token = args.token if args.token is not None else settings.token
    if token is not None and not token.strip():
        # an empty token is a mistake (an unset shell variable), not a request to be a guest
        raise UsageError(
            f"{'--token' if args.token is not None else 'PARLEY_TOKEN'} is empty; give a token, "
            "or leave it out to ask as a guest"
        )
    # asked of this machine's own address: the server may well be on another port
    elsewhere = (
        None
        if args.url
        else f"is it serving on another port? give its URL, or set PARLEY_PORT (as for {command()} serve --port)"
    )
    return doctor.run(url, token, args.expect, args.json, unreachable=elsewhere)


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
    p.add_argument(
        "--then-serve",
        action="store_true",
        help="serving follows at once (scripts/serve): leave the address to serve's announcement",
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
