"""Fill a Parley store with many principals and agent tokens, fast, for the scale section of
scripts/bench_http.py. Run with Parley's own venv python, after `parley demo` made the store
(schema, signing key, and the demo club whose rows give the scopes to use).

THE ONLY FILE OF THE BENCH THAT IMPORTS PARLEY. It uses exactly these names; update them here
when the `server` package moves:
  server.store.database.open_db          open the store (WAL, schema in place)
  server.identity.mandates.SigningKey.load_or_create   the mandate-signing key beside the store
  server.identity.mandates.sign_mandate  sign each new principal's mandate
  server.identity.principals.add_principal, add_agent   the principal and its default agent
  server.identity.tokens.mint            agent tokens (SHA-256 stored; the secret returned once)
Scopes come from the demo club's own rows (bruno's agent token and mandate, ana's principal
token), so the manifest need not be loaded here.

Usage: python populate.py --db club.db --keys keys/ --principals 10000 --tokens-each 10 --out tokens.txt
Adds members until the store holds --principals principals; each gets one agent, a signed
mandate like bruno's and --tokens-each agent tokens (the demo's agents are topped up to as many). Writes the first token of every principal
(the demo member bruno first) to --out, one a line, for "callers in turn".
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
    parser.add_argument("--principals", type=int, required=True, help="total principals in the store afterwards")
    parser.add_argument("--tokens-each", type=int, default=10)
    parser.add_argument("--out", required=True, help="file for one token of every principal (besides bruno's)")
    parser.add_argument("--first", default="", help="a token to write first (the demo member's)")
    args = parser.parse_args()

    from server.identity import principals as club
    from server.identity import tokens
    from server.identity.mandates import SigningKey, sign_mandate
    from server.store.opening import open_db

    started = time.perf_counter()
    db = open_db(args.db)
    key = SigningKey.load_or_create(Path(args.keys))
    bruno = db.execute("SELECT id FROM principals WHERE handle = 'bruno'").fetchone()[0]
    agent_scopes = frozenset(json.loads(db.execute(
        "SELECT scopes FROM tokens WHERE principal_id = ? AND kind = 'agent'", [bruno]).fetchone()[0]))
    mandate_scopes = json.loads(db.execute(
        "SELECT body FROM mandates WHERE principal_id = ? ORDER BY version DESC LIMIT 1", [bruno]).fetchone()[0])["scopes"]
    known_scopes = frozenset(json.loads(db.execute(
        "SELECT scopes FROM tokens WHERE kind = 'principal' ORDER BY id LIMIT 1").fetchone()[0])) | agent_scopes
    existing = db.execute("SELECT COUNT(*) FROM principals").fetchone()[0]
    last_before = db.execute("SELECT COALESCE(MAX(id), 0) FROM principals").fetchone()[0]
    firsts = [args.first] if args.first else []
    minted = 0
    batch = 500
    for start in range(existing, args.principals, batch):
        with db.atomic():
            for number in range(start, min(start + batch, args.principals)):
                handle = f"m{number:06d}"
                principal = club.add_principal(db, handle, f"Member {number}", status="member",
                                               bio="A bench member.", tags=["bench"])
                agent_id = club.add_agent(db, handle)
                sign_mandate(db, key, principal_id=principal.id, topics=["bench"], reveal=["public", "members"],
                             quotable=False, scopes=mandate_scopes, known_scopes=known_scopes,
                             agent_scopes=agent_scopes, valid_for=timedelta(days=365))
                for index in range(args.tokens_each):
                    token = tokens.mint(db, principal_id=principal.id, agent_id=agent_id, scopes=agent_scopes)
                    minted += 1
                    if index == 0:
                        firsts.append(token.token)
    # The demo's own principals get agent tokens up to --tokens-each too, so the totals are round.
    with db.atomic():
        for principal_id, agent_id, have in db.execute(
            "SELECT a.principal_id, a.id, COUNT(t.id) FROM agents AS a JOIN tokens AS t ON t.agent_id = a.id "
            "WHERE a.principal_id <= ? AND t.kind = 'agent' GROUP BY a.id", [last_before]
        ).fetchall():
            for _ in range(args.tokens_each - have):
                tokens.mint(db, principal_id=principal_id, agent_id=agent_id, scopes=agent_scopes)
                minted += 1
    Path(args.out).write_text("".join(f"{token}\n" for token in firsts))
    total = db.execute("SELECT COUNT(*) FROM principals").fetchone()[0]
    agent_tokens = db.execute("SELECT COUNT(*) FROM tokens WHERE kind = 'agent'").fetchone()[0]
    print(f"populate: {total} principals, {agent_tokens} agent tokens ({minted} minted now) "
          f"in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
