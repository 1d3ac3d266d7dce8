"""A stored rule that no longer compiles fails closed: its binding's tool refuses every call, naming the
rule, until a steward fixes or removes it; `parley tools check` fails naming it, `parley serve` says so
at start, and every steward's Home warns. Each case is a real change made under a published rule (an
argument renamed in the tool's code, an attribute's type or its context source changed in the
manifest), followed by a restart."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic import Field

from server.app import build
from server.manifest.loading import default_manifest_path
from server.store.opening import open_db
from server.tools.refunds import RefundRequest
from server.tools.registry import REGISTRY, Args, WriteContext
from tests.chokepoint.test_e2e_rules import HR
from tests.cli.test_cli import run
from tests.conftest import LiveServer, bound_socket, connect, make_settings, running_club
from tests.console_helpers import ConsoleUser

BROKEN = "this rule no longer compiles; a steward must fix or remove it"


@contextlib.contextmanager
def restarted(tmp_path: Path, manifest: Path) -> Iterator[LiveServer]:
    """The club's server started again on the same store (and keys), with the manifest as it is now."""
    sock = bound_socket()
    live = LiveServer(sock, build(make_settings(tmp_path, sock.getsockname()[1], manifest)))
    live.start()
    try:
        yield live
    finally:
        live.stop()
        live.parley.db.close()


@pytest.fixture
def desk(tmp_path):
    """The refund desk of `manifests/demo-refunds.yaml` without its manifest rules (the rules here are the
    store's), its HR and orders APIs served on a free port."""
    hr = ThreadingHTTPServer(("127.0.0.1", 0), HR)
    HR.mode = "ok"
    threading.Thread(target=hr.serve_forever, daemon=True).start()
    manifest = tmp_path / "desk.yaml"
    text = (default_manifest_path().parent / "demo-refunds.yaml").read_text()
    text = text[: text.index("rules:\n")] + text[text.index("agents:\n") :]
    manifest.write_text(text.replace("127.0.0.1:8099", f"127.0.0.1:{hr.server_port}"))
    with running_club(tmp_path, manifest) as club:
        yield club
    hr.shutdown()


def parley(club, *arguments: str, check: bool = True):
    return run(
        club.settings.db_path.parent,
        *arguments,
        check=check,
        env={
            "PARLEY_MANIFEST": str(club.settings.manifest_path),
            "PARLEY_DB": str(club.settings.db_path),
        },
    )


def publish(club, *arguments: str) -> str:
    drafted = parley(
        club, "rules", "draft", "--agent", "desk", "--tool", "refund_order", *arguments
    )
    rule_id = drafted.stdout.split("drafted store:")[1].split(":")[0]
    parley(club, "rules", "publish", rule_id)
    return rule_id


async def refused_naming(url: str, token: str, rule: str, arguments: dict) -> None:
    async with connect(url, token) as agent:
        result = await agent.call_tool("refund_order", arguments)
    assert result.is_error
    assert result.content[0].text == f'Blocked by rule "{rule}": {BROKEN}. The call was not made.'


def audited(live: LiveServer, tmp_path: Path) -> tuple:
    """The newest audit row, once the server has written every answered call's row."""
    deadline = time.monotonic() + 10
    while live.parley.chokepoint.audit.waiting and time.monotonic() < deadline:
        time.sleep(0.005)
    db = open_db(tmp_path / "club.db")
    try:
        row = db.execute(
            "SELECT outcome, rule, binding_agent, binding_server, tool FROM audit "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return (row[0], row[1], " · ".join(row[2:]))
    finally:
        db.close()


async def steward_home(live: LiveServer, password: str) -> str:
    async with ConsoleUser(live.parley.settings.public_url, "ana", password) as ana:
        return (await ana.get("/console")).text


async def member_home(live: LiveServer, password: str) -> str:
    async with ConsoleUser(live.parley.settings.public_url, "bruno", password) as bruno:
        return (await bruno.get("/console")).text


class RenamedArgs(Args):
    """refund_order's arguments after a release renamed `amount` to `total`."""

    order_id: str = Field(min_length=1, max_length=40)
    total: float = Field(gt=0, le=1_000_000)
    expedite: bool = False
    reason: str = Field(default="", max_length=500)


def renamed_refund(ctx: WriteContext, args: RenamedArgs) -> RefundRequest:
    refund_id = ctx.writes.add_refund(args.order_id, args.total, args.expedite, args.reason)
    return RefundRequest(
        id=refund_id,
        order_id=args.order_id,
        amount=args.total,
        expedite=args.expedite,
        status="requested",
    )


async def test_an_argument_renamed_under_a_published_rule_blocks_the_tool_after_a_restart(
    desk, tmp_path, monkeypatch
):
    rule_id = publish(desk, "--name", "Refund up to 500", "--when", "amount is at most 500")
    member = desk.tokens.member.token
    async with connect(
        desk.url, member
    ) as agent:  # in force: a small refund passes, a big one does not
        assert not (
            await agent.call_tool("refund_order", {"order_id": "4411", "amount": 100.0})
        ).is_error
    desk.live.stop()
    # the release that renames the argument: the tool's own code, as the server's registry holds it
    monkeypatch.setitem(
        REGISTRY,
        "refund_order",
        dataclasses.replace(
            REGISTRY["refund_order"], input_model=RenamedArgs, handler=renamed_refund
        ),
    )
    with restarted(tmp_path, desk.settings.manifest_path) as live:
        await refused_naming(
            live.url, member, "Refund up to 500", {"order_id": "4411", "total": 100.0}
        )
        await refused_naming(
            live.url, member, "Refund up to 500", {"order_id": "4411", "total": 5000.0}
        )
        assert audited(live, tmp_path) == (
            "rule_broken",
            "Refund up to 500",
            "desk · parley · refund_order",
        )
        home = await steward_home(live, desk.tokens.passwords["ana"])
        assert "1 rule no longer compiles" in home and "Refund up to 500" in home
        assert "Unknown field &#39;amount&#39;" in home
        assert "no longer compile" not in await member_home(live, desk.tokens.passwords["bruno"])
        checked = parley(desk, "tools", "check", check=False)
        assert checked.returncode == 1
        assert (
            f"error: store:{rule_id}: published rule 'Refund up to 500' on desk · parley · refund_order no longer "
            f"compiles (rule 'Refund up to 500': unknown field 'amount')"
        ) in checked.stdout
        listed = parley(desk, "rules", "list").stdout
        assert "(does not compile: rule 'Refund up to 500': unknown field 'amount')" in listed
        # a steward removes it: the tool answers again from the next call, with the new argument
        parley(desk, "rules", "remove", rule_id)
        async with connect(live.url, member) as agent:
            assert not (
                await agent.call_tool("refund_order", {"order_id": "4411", "total": 100.0})
            ).is_error
        assert parley(desk, "tools", "check").returncode == 0
        assert "no longer compile" not in await steward_home(live, desk.tokens.passwords["ana"])


async def test_a_cel_rule_whose_context_source_was_removed_blocks_the_tool_after_a_restart(
    desk, tmp_path
):
    rule_id = publish(
        desk, "--name", "Only the analysts' department", "--cel", 'subject.department == "analysts"'
    )
    member = desk.tokens.member.token
    async with connect(desk.url, member) as agent:
        assert not (
            await agent.call_tool("refund_order", {"order_id": "4411", "amount": 100.0})
        ).is_error
    desk.live.stop()
    manifest = desk.settings.manifest_path
    text = manifest.read_text()
    hr = text[text.index("  hr:\n") : text.index("  orders:\n")]
    manifest.write_text(text.replace(hr, ""))
    expected = (
        f"error: store:{rule_id}: published rule 'Only the analysts' department' on desk · parley · "
        "refund_order no longer compiles (rule 'Only the analysts' department': reads unknown attribute "
        "'subject.department')"
    )
    checked = parley(desk, "tools", "check", check=False)
    assert checked.returncode == 1 and expected in checked.stdout
    with restarted(tmp_path, manifest) as live:
        await refused_naming(
            live.url, member, "Only the analysts' department", {"order_id": "4411", "amount": 1.0}
        )
        assert audited(live, tmp_path)[:2] == ("rule_broken", "Only the analysts' department")
        home = await steward_home(live, desk.tokens.passwords["ana"])
        assert "Only the analysts&#39; department" in home and "Reads unknown attribute" in home
        async with connect(
            live.url, member
        ) as agent:  # whoami tells the agent why its tool refuses
            rules = (await agent.call_tool("whoami", {})).structured_content["rules"]
        assert {
            "tool": "refund_order",
            "rule": "Only the analysts' department",
            "reads_as": f"({BROKEN}: every call to refund_order is refused)",
        } in rules
    # `parley serve` says so at start (and serves: the tool stays blocked, nothing else is)
    env = {**os.environ, "PARLEY_DB": str(desk.settings.db_path), "PARLEY_MANIFEST": str(manifest)}
    sock = bound_socket()
    port = sock.getsockname()[1]
    sock.close()
    serving = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port)],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serving.stderr is not None
        said = serving.stderr.readline()
    finally:
        serving.terminate()
        serving.wait(30)
    assert (
        f"store:{rule_id}: published rule 'Only the analysts' department'" in said
        and "is refused" in said
    )


async def test_an_attribute_whose_type_changed_blocks_the_tool_and_a_broken_draft_cannot_be_published(
    desk, tmp_path
):
    rule_id = publish(
        desk,
        "--name",
        "Within the employee's limit",
        "--when",
        "amount is at most subject.refund_limit",
    )
    drafted = parley(
        desk,
        "rules",
        "draft",
        "--agent",
        "desk",
        "--tool",
        "refund_order",
        "--name",
        "Also within",
        "--when",
        "amount is less than subject.refund_limit",
    )
    draft_id = drafted.stdout.split("drafted store:")[1].split(":")[0]
    desk.live.stop()
    manifest = desk.settings.manifest_path
    manifest.write_text(manifest.read_text().replace("refund_limit: number", "refund_limit: text"))
    checked = parley(desk, "tools", "check", check=False)
    assert checked.returncode == 1
    assert f"store:{rule_id}: published rule 'Within the employee's limit'" in checked.stdout
    assert (
        f"warning: store:{draft_id}: draft rule 'Also within' on desk · parley · refund_order no longer compiles "
        "(rule 'Also within': 'subject.refund_limit' is not a number trusted attribute): it cannot be "
        "published"
    ) in checked.stdout
    refused = parley(desk, "rules", "publish", draft_id, check=False)
    assert (
        refused.returncode == 1
        and f"draft store:{draft_id} no longer compiles, so nothing was published" in refused.stderr
    )
    with restarted(tmp_path, manifest) as live:
        await refused_naming(
            live.url,
            desk.tokens.member.token,
            "Within the employee's limit",
            {"order_id": "4411", "amount": 1.0},
        )
