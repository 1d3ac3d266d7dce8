"""A rule's cost is bounded by construction, the same for every way a rule arrives: the CLI's draft,
the console's draft and Preview, the manifest, and a stored rule read back (one an older version let
through). Compiled rules are kept by their body; a costlier rule runs off the event loop, under a time
budget that fails the call closed, naming the rule."""

from __future__ import annotations

import shutil

import pytest

from server.chokepoint.rule_cost import MAX_CHARACTERS, measure
from server.chokepoint.rulebook import INLINE_COST, RuleBook
from server.chokepoint.rules import RuleDecl, RuleError
from server.manifest.loading import default_manifest_path
from server.store import rules as rule_rows
from server.store.database import now, write
from server.store.opening import open_db
from tests.chokepoint.test_rules import CALLER, args, book_with
from tests.cli.test_cli import run
from tests.conftest import connect
from tests.console_helpers import ConsoleUser, csrf_of

DIGITS = "[0,1,2,3,4,5,6,7,8,9]"


def nested(depth: int, body: str) -> str:
    """`depth` nested `[0,…,9].exists(…)` whose loop variables are never used: 10**depth evaluations."""
    for variable in "abcdefgh"[:depth]:
        body = f"{DIGITS}.exists({variable}, {body})"
    return body


# the rule of the report: 246 characters, ten million evaluations of its body (2.5 s to 5 s), which
# the publish check let through because its one sample stops at the first element
STALL = nested(7, "args.limit >= 1")
# 40,022 characters: its sample stops at `args.limit == 1`; the first call past it killed the server
LONG = "args.limit == 1 || " + "+".join(["1"] * 20_000) + " > 0"
COSTLY = "would cost more than 20,000 steps"


def test_the_two_rules_of_the_report_are_what_they_were():
    assert len(STALL) == 246 and len(LONG) == 40_022


@pytest.mark.parametrize(
    ("cel", "why"),
    [
        (STALL, COSTLY),
        (nested(4, "true"), COSTLY),
        (LONG, f"40,022 characters; a rule is at most {MAX_CHARACTERS:,}"),
        ("(" * 40 + "true" + ")" * 40, "nests deeper than 32 brackets"),
        (f"({DIGITS} + {DIGITS}).exists(a, {DIGITS}.exists(b, {DIGITS}.exists(c, true)))", COSTLY),
    ],
)
def test_a_costly_rule_is_refused_at_draft_saying_why(cel, why):
    """The rule book's compile, which the CLI, the console and the manifest all call."""
    decl = RuleDecl.model_validate(
        {"name": "Stall", "binding": {"agent": "desk", "tool": "refund_order"}, "cel": cel}
    )
    with pytest.raises(RuleError) as refused:
        book_with().compile(decl, "draft")
    assert str(refused.value).startswith("rule 'Stall': ") and why in str(refused.value)


def test_cheap_rules_and_small_comprehensions_still_compile():
    for cel in (
        "args.amount <= 500.0",
        f'args.reason in ["a", "b"] || {DIGITS}.exists(d, args.amount > 3.0)',
        nested(2, "args.amount > 0.0"),
        f"{DIGITS}.map(x, 2).exists(y, args.expedite)",
    ):
        book_with({"name": "ok", "binding": {"agent": "desk", "tool": "refund_order"}, "cel": cel})
    assert measure("args.amount <= 500.0").cost <= INLINE_COST < measure(nested(2, "true")).cost


def test_the_cli_refuses_both_rules_at_draft_and_drafts_nothing(tmp_path):
    run(tmp_path, "init")
    for cel, why in ((LONG, "40,022 characters"), (STALL, COSTLY)):
        refused = run(
            tmp_path,
            *("rules", "draft", "--agent", "member", "--tool", "search_directory"),
            *("--name", "Stall", "--cel", cel),
            check=False,
        )
        assert refused.returncode == 1 and why in refused.stderr, refused.stderr
    assert "Stall" not in run(tmp_path, "rules", "list").stdout


def test_the_manifest_loader_refuses_a_long_rule(tmp_path):
    """`parley tools check` (and `parley serve`, which runs the same check) names the rule and why."""
    manifest = tmp_path / "club.yaml"
    shutil.copytree(default_manifest_path().parent / "knowledge", tmp_path / "knowledge")
    text = default_manifest_path().read_text()
    rule = (
        "\nrules:\n  - name: Long\n    binding: { agent: member, tool: search_directory }\n"
        f"    cel: '{LONG}'\n"
    )
    manifest.write_text(text[: text.index("\nrules:")] + rule + text[text.index("\n# One agent") :])
    checked = run(tmp_path, "tools", "check", "--manifest", str(manifest), check=False)
    assert checked.returncode == 1
    assert "rule 'Long': the expression is 40,022 characters" in checked.stdout + checked.stderr


async def test_a_stored_costly_rule_holds_its_tool_back_and_whoami_stays_answered(club):
    """A rule an older version published: read back, it is refused as any draft of it would be, its
    tool refuses every call naming it (fail closed), and every other call is answered."""
    db = club.db()
    decl = RuleDecl.model_validate(
        {"name": "Stall", "binding": {"agent": "member", "tool": "search_directory"}, "cel": STALL}
    )
    with write(db):
        rule_id = rule_rows.add_draft(
            db, "member", "search_directory", "Stall", decl.model_dump_json(), now()
        )
        rule_rows.publish(db, rule_id, now())
    db.close()
    async with connect(club.url, club.tokens.member.token) as member:
        searched = await member.call_tool("search_directory", {"limit": 20})
        who = (await member.call_tool("whoami", {})).structured_content
    assert searched.is_error and 'Blocked by rule "Stall"' in searched.content[0].text
    assert who["lane"] == "member"
    listed = run(
        club.settings.db_path.parent, "rules", "list", env={"PARLEY_DB": str(club.settings.db_path)}
    )
    assert COSTLY in listed.stdout


async def test_the_consoles_preview_refuses_a_costly_draft_never_saved(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        csrf = csrf_of(
            (await ana.get("/console/rules/new?agent=member&tool=search_directory")).text
        )
        preview = await ana.http.post(
            "/console/rules/new",
            data={
                "agent": "member",
                "tool": "search_directory",
                "mode": "cel",
                "match": "all",
                "name": "Stall",
                "cel": STALL,
                "csrf": csrf,
                "action": "preview",
            },
        )
    assert preview.status_code == 200 and COSTLY in preview.json()["errors"]["cel"]


def test_stored_rules_are_compiled_once_for_their_body(tmp_path):
    """An unrelated change to the store (a new revision) compiles nothing again."""
    db = open_db(tmp_path / "club.db")
    book = book_with(db=db)
    book.draft(
        RuleDecl.model_validate(
            {
                "name": "Small",
                "binding": {"agent": "desk", "tool": "refund_order"},
                "conditions": [{"field": "amount", "op": "is at most", "value": 500}],
            }
        )
    )
    book.publish()
    (before,) = book.rules_for("desk", "refund_order")
    db.execute("UPDATE revision SET n = n + 1 WHERE id = 1")  # as any unrelated change bumps it
    book.refresh()
    (after,) = book.rules_for("desk", "refund_order")
    assert book.in_force is not None and after is before
    db.close()


async def test_a_costlier_rule_runs_off_the_loop_and_an_overrun_fails_that_call_closed():
    """Past its time budget (here none at all) the call is refused naming the rule; the same rule within
    its budget passes, and a cheap rule beside it is never held back."""
    costly = {
        "name": "Nested",
        "binding": {"agent": "desk", "tool": "refund_order"},
        "cel": nested(2, "args.amount > 0.0"),
    }
    book = book_with(costly)
    assert await book.check(CALLER, "refund_order", args()) is None
    hurried: RuleBook = book_with(costly)
    hurried.evaluation_seconds = 0
    trail: list[tuple[str, str, str]] = []
    denial = await hurried.check(CALLER, "refund_order", args(), trail)
    assert denial is not None and denial.outcome == "rule_error"
    assert denial.message == 'Rule took too long to evaluate: "Nested". The call was not made.'
    assert trail == [("rule", "Nested", "took too long")]
