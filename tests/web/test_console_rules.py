"""The Rules and Activity pages over real HTTP, as plain forms (no script): who may see them, one code path
with `parley rules` for draft, publish and remove, what Activity shows to whom, the path of a decision
the audit keeps (never a value), and hostile forms and queries answered without a 5xx."""

from __future__ import annotations

import json
import re

from tests.chokepoint.test_e2e_rules import HR, desk  # noqa: F401 - the refund desk with its HR and orders APIs
from tests.cli.test_cli import run
from tests.conftest import connect
from tests.console_helpers import ConsoleUser, csrf_of
from tests.http.test_fuzz import FORM_VALUES, PATH_IDS, FormFuzz, fuzz_club, signed_in, tap  # noqa: F401

EDITOR = {"agent": "member", "tool": "log_evidence", "mode": "builder", "match": "all"}


def reads_as(html: str) -> str:
    found = re.search(r'<output id="reads-as"[^>]*>([^<]*)</output>', html)
    assert found, "no Reads as on the page"
    return found.group(1).replace("&#39;", "'")


async def test_only_stewards_see_rules_and_members_get_403_and_no_link(club):
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        home = (await bruno.get("/console")).text
        assert 'href="/console/rules"' not in home
        for path in (
            "/console/rules",
            "/console/rules?tool=ask",
            "/console/rules/new?agent=member&tool=ask",
            "/console/rules/publish",
        ):
            page = await bruno.get(path)
            assert page.status_code == 403 and "Only the club&#39;s stewards" in page.text, path
        refused = await bruno.post("/console/rules/publish", {"id": "1"})
        assert refused.status_code == 403
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        assert 'href="/console/rules"' in (await ana.get("/console")).text
        assert (await ana.get("/console/rules?tool=teleport")).status_code == 404
        assert (
            await ana.get("/console/rules/new?agent=lobby&tool=ask")
        ).status_code == 404  # not a binding


async def test_draft_publish_and_remove_from_the_console_are_the_clis_rules(club):
    settings = club.settings
    env = {
        "PARLEY_DB": str(settings.db_path),
        "PARLEY_MANIFEST": str(settings.manifest_path),
        "PARLEY_KEYS": str(settings.keys_dir),
        **({"PARLEY_DATABASE_URL": settings.database_url} if settings.database_url else {}),
    }
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        editor = await ana.get("/console/rules/new?agent=member&tool=log_evidence")
        assert editor.status_code == 200
        csrf = csrf_of(editor.text)
        form = {
            **EDITOR,
            "csrf": csrf,
            "name": "Portfolios only",
            "field_0": "args.kind",
            "op_0": "is one of",
            "value_0": "portfolio, reference,publication",
        }
        shown = await ana.http.post("/console/rules/new", data={**form, "action": "update"})
        assert reads_as(shown.text) == "kind is one of [portfolio, reference, publication]"
        # remove a value (its chip's button), then draft
        form = {**form, "value_0": "", "list_0": ["portfolio", "reference", "publication"]}
        fewer = await ana.http.post("/console/rules/new", data={**form, "action": "unchip_0_2"})
        assert reads_as(fewer.text) == "kind is one of [portfolio, reference]"
        drafted = await ana.http.post(
            "/console/rules/new",
            data={**form, "list_0": ["portfolio", "reference"], "action": "draft"},
        )
        assert (
            drafted.status_code == 303
            and drafted.headers["location"] == "/console/rules?tool=log_evidence#panel"
        )
        listed = run(club.settings.db_path.parent, "rules", "list", "--json", env=env).stdout
        (row,) = [r for r in json.loads(listed) if r["name"] == "Portfolios only"]
        assert row["state"] == "draft" and row["binding"] == "member · parley · log_evidence"
        rule_id = int(row["id"].removeprefix("store:"))
        review = await ana.get("/console/rules/publish")
        assert "Adds 1 rule" in review.text and f'name="id" value="{rule_id}"' in review.text
        # a stale review (a draft published since) publishes nothing and says why
        stale = await ana.post(
            "/console/rules/publish",
            {"id": [str(rule_id), "999999"]},
            page="/console/rules/publish",
        )
        assert (
            stale.status_code == 409
            and "changed since you looked, so nothing was published" in stale.text
        )
        published = await ana.post(
            "/console/rules/publish", {"id": str(rule_id)}, page="/console/rules/publish"
        )
        assert published.status_code == 303
        async with connect(club.url, club.tokens.member.token) as bruno:
            refused = await bruno.call_tool("log_evidence", {"kind": "event", "title": "A talk"})
            assert refused.is_error and refused.content[0].text.startswith(
                "Rule not met: kind is one of [portfolio, reference]"
            )
            panel = (await ana.get("/console/rules?tool=log_evidence")).text
            assert "Portfolios only" in panel and "In force" in panel
            # replaced, never edited: its removal and the new rule are drafted, and go live in one publish
            removed = await ana.post(f"/console/rules/{rule_id}/remove", {}, page="/console/rules")
            assert removed.status_code == 303
            again = await ana.post(f"/console/rules/{rule_id}/remove", {}, page="/console/rules")
            assert again.status_code == 404  # a second click removes nothing at once
            assert (
                "Removed at the next publish"
                in (await ana.get("/console/rules?tool=log_evidence")).text
            )
            assert (
                await bruno.call_tool("log_evidence", {"kind": "event", "title": "A talk"})
            ).is_error  # in force
            form = {
                **EDITOR,
                "csrf": csrf,
                "name": "Portfolios and events",
                "field_0": "args.kind",
                "op_0": "is one of",
                "list_0": ["portfolio", "event"],
                "action": "draft",
            }
            assert (await ana.http.post("/console/rules/new", data=form)).status_code == 303
            review = (await ana.get("/console/rules/publish")).text
            assert "Adds 1 rule, removes 1" in review and "Publish 2 changes" in review
            new_id = re.search(r'name="id" value="(\d+)"', review).group(1)
            published = await ana.post(
                "/console/rules/publish",
                {"id": new_id, "remove": str(rule_id)},
                page="/console/rules/publish",
            )
            assert published.status_code == 303
            assert not (
                await bruno.call_tool("log_evidence", {"kind": "event", "title": "A talk"})
            ).is_error
            refused = await bruno.call_tool(
                "log_evidence", {"kind": "reference", "title": "A letter"}
            )
            assert refused.is_error and "Portfolios and events" in refused.content[0].text
    listed = run(club.settings.db_path.parent, "rules", "list", env=env).stdout
    assert "Portfolios only" not in listed and "Portfolios and events" in listed


async def test_the_editor_refuses_what_cannot_be_a_rule_where_it_is_wrong(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        csrf = csrf_of((await ana.get("/console/rules/new?agent=member&tool=log_evidence")).text)
        base = {**EDITOR, "csrf": csrf, "action": "draft"}
        nameless = await ana.http.post(
            "/console/rules/new",
            data={**base, "field_0": "args.kind", "op_0": "is", "value_0": "event"},
        )
        assert nameless.status_code == 400 and 'id="name-error"' in nameless.text
        empty = await ana.http.post(
            "/console/rules/new",
            data={**base, "name": "x", "field_0": "args.kind", "op_0": "is", "value_0": ""},
        )
        assert empty.status_code == 400 and "Condition 1: give a value." in empty.text
        number = await ana.http.post(
            "/console/rules/new",
            data={
                **base,
                "name": "x",
                "field_0": "subject.asks_today",
                "op_0": "is at most",
                "value_0": "lots",
            },
        )
        assert "Condition 1: “lots” is not a number." in number.text
        parse = await ana.http.post(
            "/console/rules/new",
            data={**base, "name": "x", "mode": "cel", "cel": 'args.kind == "a" &&\n  )'},
        )
        assert parse.status_code == 400 and "does not parse at line 2, column 3" in parse.text
        # an operator of another type is replaced by the field's own: "is at most" is no text operator
        mixed = await ana.http.post(
            "/console/rules/new",
            data={
                **base,
                "action": "update",
                "name": "x",
                "field_0": "args.kind",
                "op_0": "is at most",
                "value_0": "event",
            },
        )
        assert reads_as(mixed.text) == "kind is event"
        # two call arguments are never compared: only trusted attributes are offered
        compare = await ana.http.post(
            "/console/rules/new",
            data={**base, "action": "compare_0", "name": "x", "field_0": "args.kind", "op_0": "is"},
        )
        options = re.search(r'<select id="attribute_0".*?</select>', compare.text, re.S)
        assert options and "args." not in options.group(0) and "subject.status" in options.group(0)
    db = club.db()
    assert (
        db.execute("SELECT COUNT(*) FROM rules").fetchone()[0] == 0
    )  # nothing refused was drafted
    db.close()


async def test_activity_filters_pages_and_inspects_only_what_a_member_may_see(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        for _ in range(27):
            await bruno.call_tool("whoami", {})
        await bruno.call_tool("log_evidence", {"kind": "rumour", "title": "Odd-Title-4417"})
    async with connect(club.url, club.tokens.applicant.token) as carla:
        await carla.call_tool("whoami", {})
    club.settled()
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as member:
        first = (await member.get("/console/activity")).text
        assert (
            first.count('href="/console/activity/') == 25
            and "page=2" in first
            and "Odd-Title-4417" not in first
        )
        second = (await member.get("/console/activity?page=2")).text
        assert second.count('href="/console/activity/') == 3 and "Newer calls" in second
        refusals = (await member.get("/console/activity?outcome=rule_denied")).text
        (call_id,) = re.findall(r'href="/console/activity/(\d+)"', refusals)
        inspected = (await member.get(f"/console/activity/{call_id}")).text
        assert (
            "Rule not met: kind is one of [reference, portfolio, introduction, event, publication]"
            in inspected
        )
        assert "Evidence kinds from the club&#39;s list: not met" in inspected
        assert "rumour" not in inspected and "Odd-Title-4417" not in inspected
        assert "member · parley · log_evidence" in inspected and "questions:ask" in inspected
        db = club.db()
        carlas = db.execute(
            "SELECT id FROM audit WHERE principal = 'carla' ORDER BY id DESC LIMIT 1"
        ).fetchone()[0]
        db.close()
        assert (
            await member.get(f"/console/activity/{carlas}")
        ).status_code == 404  # not bruno's: as if none
        assert (
            "carla" not in (await member.get("/console/activity?scope=club")).text
        )  # members: their own only
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as steward:
        assert "@carla" in (await steward.get("/console/activity?scope=club")).text
        assert (await steward.get(f"/console/activity/{carlas}")).status_code == 200
        assert (
            "No calls match" in (await steward.get("/console/activity?scope=club&tool=apply")).text
        )


async def test_the_audit_keeps_the_path_of_a_decision_by_name_never_a_value(desk):  # noqa: F811
    HR.mode = "error"
    async with connect(desk.url, desk.tokens.member.token) as agent:
        blocked = await agent.call_tool("refund_order", {"order_id": "4411", "amount": 12.5})
    assert blocked.is_error
    db = desk.db()
    path = json.loads(db.execute("SELECT path FROM audit ORDER BY id DESC LIMIT 1").fetchone()[0])
    db.close()
    assert path["steps"] == [
        ["source", "hr", "failed: answered HTTP 404"],
        ["source", "orders", "not asked"],
        ["rule", "Refund up to the employee's limit", "not reached"],
        ["rule", "Only open orders of the person asking", "not reached"],
    ]
    assert path["mandate"][0] == "valid" and "refunds:write" in path["scopes"]
    assert "12.5" not in json.dumps(path) and "4411" not in json.dumps(path)


def test_rules_and_activity_forms_and_queries_never_answer_5xx(fuzz_club, tap):  # noqa: F811
    fuzz = FormFuzz(tap)
    http, csrf = signed_in(fuzz_club.live.base, "ana", fuzz_club.tokens.passwords["ana"])
    try:

        def post(path: str):
            return lambda data: http.post(path, data={"csrf": csrf, **data})

        fields = [
            "name",
            "match",
            "mode",
            "cel",
            "field_0",
            "op_0",
            "value_0",
            "list_0",
            "attribute_0",
            "compare_0",
            "field_1",
            "op_1",
            "action",
        ]
        fuzz.sweep(
            "POST /console/rules/new",
            fields,
            post("/console/rules/new"),
            fixed={"agent": "member", "tool": "log_evidence"},
        )
        fuzz.sweep(
            "POST /console/rules/new (any binding)",
            ["agent", "tool", "action"],
            post("/console/rules/new"),
        )
        fuzz.sweep("POST /console/rules/publish", ["id"], post("/console/rules/publish"))
        for value in PATH_IDS:
            fuzz.send(
                f"POST remove {value[:40]}",
                lambda value=value: http.post(
                    f"/console/rules/{value}/remove", data={"csrf": csrf}
                ),
            )
            fuzz.send(
                f"GET inspector {value[:40]}",
                lambda value=value: http.get(f"/console/activity/{value}"),
            )
        for value in (
            value[:4000] for value in FORM_VALUES
        ):  # a URL's query has room for that much
            for key in ("agent", "tool", "outcome", "rule", "since", "scope", "page"):
                fuzz.send(
                    f"GET activity {key}={value[:30]!r}",
                    lambda key=key, value=value: http.get("/console/activity", params={key: value}),
                )
            fuzz.send(
                f"GET rules tool={value[:30]!r}",
                lambda value=value: http.get("/console/rules", params={"tool": value}),
            )
    finally:
        http.close()
    fuzz.verdicts.verdict()
