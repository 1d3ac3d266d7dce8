"""A rule that cannot be evaluated blocks the call, and neither the denial, the audit row nor the
server log carries the value that broke it: the rule's name and a fixed outcome, nothing else."""

from __future__ import annotations

import json
import logging
import threading
from http.server import ThreadingHTTPServer

import pytest

from server.manifest.loading import default_manifest_path
from tests.conftest import connect, running_club
from tests.test_e2e_rules import HR

SECRET = "secret-7731"
RULE = "Reason reads as a duration"
# True on the sample values a rule is checked with at publish time; on anything else the CEL
# library fails, and its message quotes the value ("Parsing Error: … input: \"secret-7731\" …").
CEL = 'args.reason == "sample" || args.reason == "" || duration(args.reason) < duration("1h")'


@pytest.fixture
def desk(tmp_path):
    hr = ThreadingHTTPServer(("127.0.0.1", 0), HR)
    HR.mode = "ok"
    threading.Thread(target=hr.serve_forever, daemon=True).start()
    manifest = tmp_path / "desk.yaml"
    text = (default_manifest_path().parent / "demo-refunds.yaml").read_text()
    text = text.replace("127.0.0.1:8099", f"127.0.0.1:{hr.server_port}")
    text = text.replace("\nrules:\n", f"\nrules:\n  - name: {RULE}\n    binding: {{ agent: desk, tool: refund_order }}\n"
                                      f"    cel: '{CEL.replace(chr(39), chr(39) * 2)}'\n", 1)
    manifest.write_text(text)
    with running_club(tmp_path, manifest) as club:
        yield club
    hr.shutdown()


async def test_a_rule_that_fails_to_evaluate_blocks_the_call_and_records_only_its_name(desk, caplog):
    caplog.set_level(logging.DEBUG, logger="parley")
    async with connect(desk.url, desk.tokens.member.token) as bruno:
        fine = await bruno.call_tool("refund_order", {"order_id": "4411", "amount": 150.0, "reason": ""})
        assert not fine.is_error, fine.content
        broken = await bruno.call_tool("refund_order", {"order_id": "4411", "amount": 150.0, "reason": SECRET})
    assert broken.is_error
    assert broken.content[0].text == f'Rule could not be evaluated: "{RULE}". The call was not made.'
    db = desk.db()
    columns = [c[1] for c in db.execute("PRAGMA table_info(audit)").fetchall()]
    rows = [dict(zip(columns, row)) for row in db.execute("SELECT * FROM audit ORDER BY id").fetchall()]
    refunds = db.execute("SELECT COUNT(*) FROM refunds").fetchone()[0] if "refunds" in db.table_names() else None
    db.close()
    last = rows[-1]
    assert last["tool"] == "refund_order" and last["outcome"] == "rule_error"
    assert last["rule"] == RULE
    assert last["binding"] == "desk · parley · refund_order"
    assert rows[-2]["outcome"] == "ok" and rows[-2]["rule"] is None
    dump = json.dumps(rows, ensure_ascii=False)
    assert SECRET not in dump and "7731" not in dump
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith(("parley", "uvicorn")))
    assert SECRET not in ours
    if refunds is not None:
        assert refunds == 1  # the blocked call filed nothing


async def test_a_tool_that_crashes_answers_a_fixed_message_and_is_audited_as_an_internal_error(club, caplog):
    """Whatever a tool raises stays in the server log: the caller reads a fixed sentence, no exception text."""
    from dataclasses import replace

    def boom(ctx, args):
        raise RuntimeError(f"database exploded near {SECRET}")

    chokepoint = club.live.parley.chokepoint
    chokepoint.specs["about_club"] = replace(chokepoint.specs["about_club"], handler=boom, blocking=False)
    async with connect(club.url, None) as guest:
        result = await guest.call_tool("about_club", {})
    assert result.is_error
    assert result.content[0].text == "Internal error while running the tool; nothing is known to have changed."
    db = club.db()
    outcome = db.execute("SELECT outcome, tool, rule FROM audit ORDER BY id DESC LIMIT 1").fetchone()
    db.close()
    assert tuple(outcome) == ("internal_error", "about_club", None)
