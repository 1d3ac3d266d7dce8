"""A rule that cannot be evaluated blocks the call, and neither the denial, the audit row nor the
server log carries the value that broke it: the rule's name and a fixed outcome, nothing else."""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import ThreadingHTTPServer

import anyio
import httpx2
import pytest

from server.manifest.loading import default_manifest_path
from tests.chokepoint.test_e2e_rules import HR
from tests.chokepoint.test_rules import MANIFEST as RULES_MANIFEST
from tests.conftest import connect, running_club

# Its distinctive part is letters no number, timestamp or hex digest contains: a row's duration
# or time may hold any digits (a check for "7731" here failed by chance on a duration).
SECRET = "secret-wqzjk"
FRAGMENT = "wqzjk"
RULE = "Reason reads as a duration"
# True on the sample values a rule is checked with at publish time; on anything else the CEL
# library fails, and its message quotes the value ("Parsing Error: … input: \"secret-wqzjk\" …").
CEL = 'args.reason == "sample" || args.reason == "" || duration(args.reason) < duration("1h")'


@pytest.fixture
def desk(tmp_path):
    hr = ThreadingHTTPServer(("127.0.0.1", 0), HR)
    HR.mode = "ok"
    threading.Thread(target=hr.serve_forever, daemon=True).start()
    manifest = tmp_path / "desk.yaml"
    text = (default_manifest_path().parent / "demo-refunds.yaml").read_text()
    text = text.replace("127.0.0.1:8099", f"127.0.0.1:{hr.server_port}")
    text = text.replace(
        "\nrules:\n",
        f"\nrules:\n  - name: {RULE}\n    binding: {{ agent: desk, tool: refund_order }}\n"
        f"    cel: '{CEL.replace(chr(39), chr(39) * 2)}'\n",
        1,
    )
    manifest.write_text(text)
    with running_club(tmp_path, manifest) as club:
        yield club
    hr.shutdown()


async def test_a_rule_that_fails_to_evaluate_blocks_the_call_and_records_only_its_name(
    desk, caplog
):
    caplog.set_level(logging.DEBUG, logger="parley")
    async with connect(desk.url, desk.tokens.member.token) as bruno:
        fine = await bruno.call_tool(
            "refund_order", {"order_id": "4411", "amount": 150.0, "reason": ""}
        )
        assert not fine.is_error, fine.content
        broken = await bruno.call_tool(
            "refund_order", {"order_id": "4411", "amount": 150.0, "reason": SECRET}
        )
    assert broken.is_error
    assert (
        broken.content[0].text == f'Rule could not be evaluated: "{RULE}". The call was not made.'
    )
    db = desk.db()
    columns = [c[1] for c in db.execute("PRAGMA table_info(audit)").fetchall()]
    rows = [
        dict(zip(columns, row, strict=True))
        for row in db.execute("SELECT * FROM audit ORDER BY id").fetchall()
    ]
    refunds = (
        db.execute("SELECT COUNT(*) FROM refunds").fetchone()[0]
        if "refunds" in db.table_names()
        else None
    )
    db.close()
    last = rows[-1]
    assert last["tool"] == "refund_order" and last["outcome"] == "rule_error"
    assert last["rule"] == RULE
    assert (last["binding_agent"], last["binding_server"], last["tool"]) == (
        "desk",
        "parley",
        "refund_order",
    )
    assert rows[-2]["outcome"] == "ok" and rows[-2]["rule"] is None
    dump = json.dumps(rows, ensure_ascii=False)
    assert SECRET not in dump and FRAGMENT not in dump
    ours = "\n".join(
        r.getMessage() for r in caplog.records if r.name.startswith(("parley", "uvicorn"))
    )
    assert SECRET not in ours
    if refunds is not None:
        assert refunds == 1  # the blocked call filed nothing


async def test_a_tool_that_crashes_answers_a_fixed_message_and_is_audited_as_an_internal_error(
    club, caplog
):
    """Whatever a tool raises stays in the server log: the caller reads a fixed sentence, no exception text."""
    from dataclasses import replace

    def boom(ctx, args):
        raise RuntimeError(f"database exploded near {SECRET}")

    chokepoint = club.live.parley.chokepoint
    chokepoint.specs["about_club"] = replace(
        chokepoint.specs["about_club"], handler=boom, blocking=False
    )
    async with connect(club.url, None) as guest:
        result = await guest.call_tool("about_club", {})
    assert result.is_error
    assert (
        result.content[0].text
        == "Internal error while running the tool; nothing is known to have changed."
    )
    db = club.db()
    outcome = db.execute(
        "SELECT outcome, tool, rule FROM audit ORDER BY id DESC LIMIT 1"
    ).fetchone()
    db.close()
    assert tuple(outcome) == ("internal_error", "about_club", None)


# --- input exactly as the schema says, found by the mutation run (scripts/mutate) -----------------


@pytest.mark.parametrize("limit", ["5", True, 5.5])
async def test_an_argument_of_the_wrong_json_type_is_invalid_input_never_coerced(club, limit):
    async with connect(club.url, club.tokens.member.token) as bruno:
        refused = await bruno.call_tool("inbox", {"limit": limit})
        fine = await bruno.call_tool("inbox", {"limit": 5})
    assert refused.is_error and not fine.is_error, (refused.content, fine.content)
    text = refused.content[0].text
    assert text.startswith("Invalid arguments for inbox: limit: ") and text.endswith(
        "Nothing was changed."
    )
    assert str(limit) not in text.removeprefix(
        "Invalid arguments for inbox: limit: "
    )  # the value is not echoed
    db = club.db()
    outcomes = [
        row[0]
        for row in db.execute(
            "SELECT outcome FROM audit WHERE tool = 'inbox' ORDER BY id"
        ).fetchall()
    ]
    db.close()
    assert outcomes == ["invalid_input", "ok"]


# --- where a call waits, and what it records ------------------------------------------------------


def _metric(text: str, name: str, labels: str) -> float:
    for line in text.splitlines():
        if line.startswith(f"{name}{{{labels}}} "):
            return float(line.split()[-1])
    return 0.0


async def test_a_made_up_tool_name_is_counted_as_unknown_never_as_a_label_of_its_own(club):
    from mcp.shared.exceptions import MCPError

    made_up = "no_such_tool_4471"
    labels = 'outcome="unknown_tool",tool="unknown"'
    metrics = f"{club.live.base}/metrics"
    async with httpx2.AsyncClient(timeout=30) as http:
        before = _metric((await http.get(metrics)).text, "parley_tool_call_seconds_count", labels)
        caller = club.live.parley.access.from_header(f"Bearer {club.tokens.member.token}")
        with pytest.raises(MCPError, match=f"Unknown tool: {made_up}"):
            await club.live.parley.chokepoint.call(caller, made_up, {})
        text = (await http.get(metrics)).text
    assert _metric(text, "parley_tool_call_seconds_count", labels) == before + 1
    assert made_up not in text


def _slow_tool(
    chokepoint,
    name: str,
    seconds: float,
    blocking: bool,
    seen: list | None = None,
    held: tuple[threading.Event, threading.Event] | None = None,
):
    """The tool made slow: it sleeps `seconds`, or, `held` as (entered, release), says it has been
    entered and waits until it is released (at most a minute, so a failing test never hangs)."""
    from dataclasses import replace

    spec = chokepoint.specs[name]

    def slow(ctx, args):
        if seen is not None:
            seen.append(("handler", threading.current_thread()))
        if held is not None:
            entered, release = held
            entered.set()
            release.wait(60)
        time.sleep(seconds)
        return spec.handler(ctx, args)

    chokepoint.specs[name] = replace(spec, handler=slow, blocking=blocking, pure=False)


async def test_a_blocking_tool_waits_in_a_worker_thread_while_other_calls_are_answered(club):
    """about_club held inside its handler and marked blocking (as `ask` is, waiting on an answering
    agent): a call that needs no wait, on another connection, is answered while it is held, not after
    it. Were the held handler on the event loop, whoami could not be answered until it was released."""
    entered, release = threading.Event(), threading.Event()
    _slow_tool(
        club.live.parley.chokepoint, "about_club", 0.0, blocking=True, held=(entered, release)
    )
    finished: list[str] = []

    async def call(tool: str) -> None:
        async with connect(club.url, club.tokens.member.token) as client:
            assert not (await client.call_tool(tool, {})).is_error
        finished.append(tool)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(call, "about_club")
            assert await anyio.to_thread.run_sync(entered.wait, 60), "about_club never ran"
            with anyio.fail_after(
                60
            ):  # a deadline, not a timing: answered while about_club is held
                await call("whoami")
            assert finished == ["whoami"]  # about_club is still held
            release.set()
    finally:
        release.set()
    assert finished == ["whoami", "about_club"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_the_audit_records_how_long_a_call_took_in_milliseconds(club, backend):
    _slow_tool(club.live.parley.chokepoint, "about_club", 0.25, blocking=False)
    async with connect(club.url, None) as guest:
        assert not (await guest.call_tool("about_club", {})).is_error
    db = club.db()
    tool, outcome, duration_ms = db.execute(
        "SELECT tool, outcome, duration_ms FROM audit ORDER BY id DESC LIMIT 1"
    ).fetchone()
    db.close()
    assert (tool, outcome) == ("about_club", "ok")
    assert 250 <= duration_ms < 10_000, duration_ms


async def _answered_while_its_row_is_held(club, monkeypatch, method: str, params: dict) -> dict:
    """`method` sent by bruno's agent over plain HTTP while the audit row's write is held up here
    (on SQLite that stops the whole server, so the session speaks plain HTTP: the SDK's client would
    ask for the tool list before returning): asserts the answer arrived with the row unwritten and its
    write under way, then that the row is in the store once the request ended; returns the answer."""
    from server.chokepoint import audit

    insert = audit.audit_rows.insert
    writing, release, written = threading.Event(), threading.Event(), threading.Event()

    def held_up(db, rows):
        writing.set()
        release.wait(10)
        insert(db, rows)
        written.set()

    db = club.db()
    before = db.execute("SELECT COUNT(*) FROM audit").fetchone()[0]
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {club.tokens.member.token}",
    }
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
    hello["clientInfo"] = {"name": "t", "version": "1"}
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(
            club.url,
            headers=headers,
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        )
        if "mcp-session-id" in opened.headers:  # stateless on PostgreSQL: no session to name
            headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        await http.post(
            club.url,
            headers=headers,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        )
        monkeypatch.setattr(audit.audit_rows, "insert", held_up)
        try:
            answer = await http.post(
                club.url,
                headers=headers,
                json={"jsonrpc": "2.0", "id": 2, "method": method, "params": params},
            )
            assert not written.is_set()  # answered with the row still unwritten
            assert writing.wait(5)  # and its write under way
            assert db.execute("SELECT COUNT(*) FROM audit").fetchone()[0] == before
        finally:
            release.set()
    club.settled()
    assert db.execute("SELECT COUNT(*) FROM audit").fetchone()[0] == before + 1
    return answer.json()


def _last_audit_row(club) -> tuple:
    row = (
        club.db()
        .execute("SELECT tool, outcome, principal FROM audit ORDER BY id DESC LIMIT 1")
        .fetchone()
    )
    return tuple(row)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_a_call_is_answered_before_its_audit_row_is_written_and_the_row_follows(
    club, backend, monkeypatch
):
    """The caller never waits on the audit write: the answer arrives while the row's write is held
    up, and the row is in the store once the request ended."""
    call = {"name": "whoami", "arguments": {}}
    answer = await _answered_while_its_row_is_held(club, monkeypatch, "tools/call", call)
    assert answer["result"]["structuredContent"]["principal"] == "bruno"
    assert _last_audit_row(club) == ("whoami", "ok", "bruno")


async def test_reading_the_inbox_is_answered_before_its_audit_row_is_written(club, monkeypatch):
    """The inbox resource is read through the chokepoint's `inbox` tool: that call's row is held by
    the request that carried the read (handed to it with the request's state) as a tools/call's is,
    and follows the answer."""
    read = {"uri": "parley://inbox"}
    answer = await _answered_while_its_row_is_held(club, monkeypatch, "resources/read", read)
    assert answer["result"]["contents"][0]["uri"] == "parley://inbox"
    assert _last_audit_row(club) == ("inbox", "ok", "bruno")


async def test_a_row_recorded_outside_a_request_or_after_it_ended_is_written_at_once(club):
    """Only a call handed its request's hold defers its row: a call made in process (no hold), or one
    still running when its request ended (the client went away), writes its row straight away."""
    import asyncio

    from server.chokepoint.audit import AuditTrail

    db = club.db()
    trail = AuditTrail(db, offload=False)
    caller = club.live.parley.access.from_header(f"Bearer {club.tokens.member.token}")

    def count() -> int:
        return db.execute("SELECT COUNT(*) FROM audit").fetchone()[0]

    start = count()
    await trail.record(caller, "whoami", "ok", 1.0)
    assert count() == start + 1  # no request: written now
    held = trail.hold()
    await trail.record(caller, "whoami", "ok", 1.0, held=held)
    assert (count(), trail.waiting) == (start + 1, 1)  # held for after the answer
    go = asyncio.Event()

    async def late_call() -> None:  # a call of the request, handed its hold, ending after it
        await go.wait()
        await trail.record(caller, "inbox", "ok", 1.0, held=held)

    late = asyncio.create_task(late_call())
    await trail.write_held(held)
    assert (count(), trail.waiting) == (start + 2, 0)
    go.set()
    await late
    assert count() == start + 3  # its request had ended: written at once, not lost in a closed hold
    assert db.execute("SELECT tool FROM audit ORDER BY id DESC LIMIT 1").fetchone()[0] == "inbox"


@pytest.mark.parametrize("backend", ["postgresql"])
async def test_on_a_store_across_the_network_a_call_never_waits_on_it_on_the_event_loop(
    club, backend, monkeypatch
):
    """On PostgreSQL every step of a tools/call that reads or writes the store (the rules in force,
    the handler, the audit row written on its own) runs in a worker thread: the loop serving every
    connection never waits."""
    from server.chokepoint import audit

    chokepoint = club.live.parley.chokepoint
    assert chokepoint.offload
    seen: list[tuple[str, threading.Thread]] = []
    refresh, insert = chokepoint.rulebook.refresh, audit.audit_rows.insert

    def watched_refresh(known=None):
        seen.append(("rules", threading.current_thread()))
        return refresh(known)

    def watched_insert(*args, **kwargs):
        seen.append(("audit", threading.current_thread()))
        return insert(*args, **kwargs)

    monkeypatch.setattr(chokepoint.rulebook, "refresh", watched_refresh)
    monkeypatch.setattr(audit.audit_rows, "insert", watched_insert)
    _slow_tool(chokepoint, "about_club", 0.0, blocking=False, seen=seen)
    async with connect(club.url, None) as guest:
        db = club.db()  # the revision moves: the rules in force are read again for the next call
        db.execute("UPDATE principals SET status = status WHERE handle = 'ana'")
        db.close()
        assert not (await guest.call_tool("about_club", {})).is_error
    club.settled()  # the audit row is written just after the answer
    assert {step.split()[0] for step, _ in seen} == {"rules", "handler", "audit"}, seen
    assert all(thread is not club.live.thread for _, thread in seen), seen


# --- the rule book as an operator reads it --------------------------------------------------------

# The rule tests' desk club, without its context sources (each test here adds the ones it needs).
DESK = RULES_MANIFEST.replace("context_sources:\n  club: {builtin: club}\n", "")
assert "context_sources" not in DESK


def test_two_context_sources_providing_one_attribute_is_a_problem_of_the_context_sources():
    from server import tools as registry
    from server.chokepoint.rulebook import manifest_rule_problems
    from server.manifest.loading import parse_manifest

    manifest = parse_manifest(
        DESK + "context_sources:\n"
        "  hr: {url: 'http://127.0.0.1:9/{subject.id}', attributes: {tier: text}}\n"
        "  crm: {url: 'http://127.0.0.1:9/c/{subject.id}', attributes: {tier: text}}\n"
    )
    specs = registry.load_all()
    (problem,) = manifest_rule_problems(
        manifest, {name: specs[name].input_schema() for name in manifest.tools}
    )
    assert (
        str(problem) == "context_sources: context sources 'hr' and 'crm' both provide subject.tier"
    )


def test_a_stored_rule_that_no_longer_compiles_is_listed_saying_why(tmp_path):
    from server import tools as registry
    from server.chokepoint.context_sources import ContextSources
    from server.chokepoint.rulebook import RuleBook
    from server.chokepoint.rules import RuleDecl
    from server.manifest.loading import parse_manifest
    from server.store.opening import open_db

    specs = registry.load_all()
    db = open_db(tmp_path / "club.db")
    try:

        def book(text: str) -> RuleBook:
            manifest = parse_manifest(text)
            schemas = {name: specs[name].input_schema() for name in manifest.tools}
            return RuleBook(manifest, db, ContextSources(manifest.context_sources, db), schemas)

        book(DESK).draft(
            RuleDecl.model_validate(
                {
                    "name": "Small refunds",
                    "binding": {"agent": "desk", "tool": "refund_order"},
                    "conditions": [{"field": "amount", "op": "is at most", "value": 500}],
                }
            )
        )
        assert [row["reads_as"] for row in book(DESK).listing()] == ["amount is at most 500"]
        # the manifest no longer has the tool: the stored rule stays listed, and says why it holds nothing back
        without = DESK.replace(
            "  refund_order: {needs: refunds:write, access: private}\n", ""
        ).replace("tools: [whoami, refund_order]", "tools: [whoami]")
        (row,) = book(without).listing()
    finally:
        db.close()
    assert row["name"] == "Small refunds" and row["state"] == "draft"
    assert (
        row["reads_as"] == "(does not compile: rule 'Small refunds': unknown tool 'refund_order')"
    )
