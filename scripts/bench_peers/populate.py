"""Fill a Parley store with many principals and agent tokens, fast, for the benches: the scale
section of scripts/bench_http.py, and the member askers of bench_main_job.py and bench_slow_asks.py
(`member_askers`, below). Run with Parley's own venv python, after `parley demo` made the store
(schema, signing key, and the demo club whose rows give the scopes to use).

THE ONLY FILE OF THE BENCH THAT IMPORTS PARLEY (inside `main`, so the benches may import
`member_askers` without it). It uses exactly these names; update them here when `server` moves:
  server.store.opening.open_db           open the store (SQLite file or PostgreSQL URL, schema in place)
  server.keys.mandate.SigningKey.load_or_create    the mandate-signing key
  server.identity.mandates.sign_mandate  sign each new principal's mandate
  server.identity.principals.add_principal, add_agent   the principal and its default agent
  server.identity.tokens.mint            agent tokens (SHA-256 stored; the secret returned once)
Scopes come from the demo club's own rows (bruno's agent token and mandate, ana's principal
token), so the manifest need not be loaded here.

Usage: python populate.py --db club.db --keys keys/ --principals 10000 --tokens-each 10 --out tokens.txt
       python populate.py --db postgresql://… --keys keys/ --add 26 --tokens-each 1 --out askers.txt
Adds members until the store holds --principals principals (or --add more than it holds); each gets
one agent, a signed mandate like bruno's and --tokens-each agent tokens (the demo's agents are topped
up to as many). Writes the first token of every new principal (--first, when given, first) to --out,
one a line, for "callers in turn".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import timedelta
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--keys", required=True)
    total = parser.add_mutually_exclusive_group(required=True)
    total.add_argument("--principals", type=int, help="total principals in the store afterwards")
    total.add_argument("--add", type=int, help="principals to add to those the store holds")
    parser.add_argument("--tokens-each", type=int, default=10)
    parser.add_argument(
        "--out", required=True, help="file for one token of every principal (besides bruno's)"
    )
    parser.add_argument("--first", default="", help="a token to write first (the demo member's)")
    args = parser.parse_args()

    from server.identity import principals as club
    from server.identity import tokens
    from server.identity.mandates import sign_mandate
    from server.keys.mandate import SigningKey
    from server.store.database import write
    from server.store.opening import open_db

    started = time.perf_counter()
    db = open_db(args.db)
    key = SigningKey.load_or_create(Path(args.keys))
    bruno = db.execute("SELECT id FROM principals WHERE handle = 'bruno'").fetchone()[0]
    agent_scopes = frozenset(
        json.loads(
            db.execute(
                "SELECT scopes FROM tokens WHERE principal_id = ? AND kind = 'agent'", [bruno]
            ).fetchone()[0]
        )
    )
    mandate_scopes = json.loads(
        db.execute(
            "SELECT body FROM mandates WHERE principal_id = ? ORDER BY version DESC LIMIT 1",
            [bruno],
        ).fetchone()[0]
    )["scopes"]
    known_scopes = (
        frozenset(
            json.loads(
                db.execute(
                    "SELECT scopes FROM tokens WHERE kind = 'principal' ORDER BY id LIMIT 1"
                ).fetchone()[0]
            )
        )
        | agent_scopes
    )
    existing = db.execute("SELECT COUNT(*) FROM principals").fetchone()[0]
    wanted = existing + args.add if args.add is not None else args.principals
    last_before = db.execute("SELECT COALESCE(MAX(id), 0) FROM principals").fetchone()[0]
    firsts = [args.first] if args.first else []
    minted = 0
    batch = 500
    for start in range(existing, wanted, batch):
        with write(db):  # either store
            for number in range(start, min(start + batch, wanted)):
                handle = f"m{number:06d}"
                principal = club.add_principal(
                    db,
                    handle,
                    f"Member {number}",
                    status="member",
                    bio="A bench member.",
                    tags=["bench"],
                )
                agent_id = club.add_agent(db, handle)
                sign_mandate(
                    db,
                    key,
                    principal_id=principal.id,
                    topics=["bench"],
                    reveal=["public", "members"],
                    quotable=False,
                    scopes=mandate_scopes,
                    known_scopes=known_scopes,
                    agent_scopes=agent_scopes,
                    valid_for=timedelta(days=365),
                )
                for index in range(args.tokens_each):
                    token = tokens.mint(
                        db, principal_id=principal.id, agent_id=agent_id, scopes=agent_scopes
                    )
                    minted += 1
                    if index == 0:
                        firsts.append(token.token)
    # The demo's own principals get agent tokens up to --tokens-each too, so the totals are round.
    with write(db):
        for principal_id, agent_id, have in db.execute(
            "SELECT a.principal_id, a.id, COUNT(t.id) FROM agents AS a JOIN tokens AS t ON t.agent_id = a.id "
            "WHERE a.principal_id <= ? AND t.kind = 'agent' GROUP BY a.id",
            [last_before],
        ).fetchall():
            for _ in range(args.tokens_each - have):
                tokens.mint(db, principal_id=principal_id, agent_id=agent_id, scopes=agent_scopes)
                minted += 1
    Path(args.out).write_text("".join(f"{token}\n" for token in firsts))
    total = db.execute("SELECT COUNT(*) FROM principals").fetchone()[0]
    agent_tokens = db.execute("SELECT COUNT(*) FROM tokens WHERE kind = 'agent'").fetchone()[0]
    print(
        f"populate: {total} principals, {agent_tokens} agent tokens ({minted} minted now) "
        f"in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


def member_askers(env: dict[str, str], folder: Path, count: int, first: str = "") -> list[str]:
    """`count` more members who may ask, each with a signed mandate like the demo member's and one agent
    token, made by this script in Parley's venv (the CLI would take minutes on a shared machine); their
    tokens. `env` points at the store (PARLEY_DATABASE_URL or PARLEY_DB) and its keys (PARLEY_KEYS)."""
    import os
    import subprocess

    python = Path(__file__).resolve().parent.parent.parent / ".venv" / "bin" / "python"
    out = folder / "askers.txt"
    store = env.get("PARLEY_DATABASE_URL") or env["PARLEY_DB"]
    command = [
        str(python),
        __file__,
        "--db",
        store,
        "--keys",
        env["PARLEY_KEYS"],
        "--add",
        str(count),
        "--tokens-each",
        "1",
        "--out",
        str(out),
        *(["--first", first] if first else []),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env={**os.environ, **env}
    )
    if done.returncode != 0:
        raise SystemExit(f"populate.py failed: {done.stderr[-2000:]}")
    askers = [line for line in out.read_text().split() if line != first]
    if len(askers) != count:
        raise SystemExit(f"populate.py made {len(askers)} askers, not {count}")
    return askers


if __name__ == "__main__":
    sys.exit(main())
