"""Rules: every operator for every type, all/any, CEL, publish checks, and the rule book's lifecycle."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server import tools as registry
from server.access import Caller
from server.chokepoint.context_sources import ContextSources
from server.chokepoint.rulebook import RuleBook
from server.chokepoint.rules import RuleDecl, RuleError
from server.identity.mandates import MandateStatus
from server.identity.resolver import Identity
from server.manifest.loading import parse_manifest
from server.store.opening import open_db

MANIFEST = """
club: {name: Desk, description: d, how_to_join: j}
scopes:
  refunds:write: {description: r}
lanes:
  guest: {ceiling: [], description: g, how_to_leave: l}
  applicant: {ceiling: [], description: g, how_to_leave: l}
  member: {ceiling: [refunds:write], description: g, how_to_leave: l}
tools:
  whoami: {access: public}
  refund_order: {needs: refunds:write, access: private}
context_sources:
  club: {builtin: club}
agents:
  desk: {name: Desk, instructions: i, tools: [whoami, refund_order]}
entry: [{agent: desk}]
"""
ANA = Identity(
    credential="agent_token",
    principal_id=1,
    principal="ana",
    principal_status="member",
    steward=False,
    agent_id=None,
    agent=None,
    token_scopes=frozenset({"refunds:write"}),
    mandate=MandateStatus("missing", None),
)
CALLER = Caller(
    ANA,
    lane="member",
    why="test",
    scopes=frozenset({"refunds:write"}),
    tools=("whoami", "refund_order"),
    entry_persona="desk",
)


def book_with(*decls: dict, db=None) -> RuleBook:
    manifest = parse_manifest(MANIFEST)
    specs = registry.load_all()
    schemas = {name: specs[name].input_schema() for name in manifest.tools}
    book = RuleBook(
        manifest, db, ContextSources(manifest.context_sources, db), schemas, compile_manifest=False
    )
    book.manifest_rules = [
        rule
        for i, decl in enumerate(decls)
        for rule in book.compile(RuleDecl.model_validate(decl), f"manifest:{i}")
    ]
    book._revision = None
    book.refresh()
    return book


def args(**changes) -> dict:
    return {"order_id": "A1", "amount": 100.0, "expedite": False, "reason": "", **changes}


async def verdict(book: RuleBook, call: dict) -> str | None:
    denial = await book.check(CALLER, "refund_order", call)
    return None if denial is None else denial.message


BINDING = {"agent": "desk", "tool": "refund_order"}

OPERATOR_CASES = [
    # text
    ("order_id", "is", "A1", args(order_id="A1"), args(order_id="B2")),
    ("order_id", "is not", "A1", args(order_id="B2"), args(order_id="A1")),
    ("order_id", "is one of", ["A1", "A2"], args(order_id="A2"), args(order_id="A3")),
    ("order_id", "starts with", "A", args(order_id="A9"), args(order_id="B9")),
    # number
    ("amount", "is at most", 500, args(amount=500.0), args(amount=500.01)),
    ("amount", "is less than", 500, args(amount=499.99), args(amount=500.0)),
    ("amount", "is at least", 10, args(amount=10.0), args(amount=9.99)),
    ("amount", "is more than", 10, args(amount=10.5), args(amount=10.0)),
    ("amount", "is", 42, args(amount=42.0), args(amount=41.0)),
    # boolean
    ("expedite", "is true", None, args(expedite=True), args(expedite=False)),
    ("expedite", "is false", None, args(expedite=False), args(expedite=True)),
]


@pytest.mark.parametrize(
    "field, op, value, passing, failing",
    OPERATOR_CASES,
    ids=[f"{c[0]} {c[1]}" for c in OPERATOR_CASES],
)
async def test_every_operator_for_every_type(field, op, value, passing, failing):
    condition = {"field": field, "op": op} | ({"value": value} if value is not None else {})
    book = book_with({"name": f"{field} {op}", "binding": BINDING, "conditions": [condition]})
    assert await verdict(book, passing) is None
    message = await verdict(book, failing)
    shown = (
        f"[{', '.join(map(str, value))}]"
        if isinstance(value, list)
        else ("" if value is None else f" {value}")
    )
    expected = f"Rule not met: {field} {op}" + (f" {shown}" if isinstance(value, list) else shown)
    assert message.startswith(expected), message


async def test_all_and_any_and_the_seeds_reads_as():
    conditions = [
        {"field": "amount", "op": "is at most", "value": 500},
        {"field": "order_id", "op": "is one of", "value": ["1001", "1002"]},
    ]
    every = book_with({"name": "Refund up to 500", "binding": BINDING, "conditions": conditions})
    assert (
        every.rules_for("desk", "refund_order")[0].reads_as
        == "amount is at most 500 AND order_id is one of [1001, 1002]"
    )
    assert await verdict(every, args(amount=400.0, order_id="1001")) is None
    assert await verdict(every, args(amount=400.0, order_id="1003")) is not None
    assert await verdict(every, args(amount=600.0, order_id="1001")) is not None
    either = book_with(
        {"name": "Small or listed", "binding": BINDING, "match": "any", "conditions": conditions}
    )
    assert (
        either.rules_for("desk", "refund_order")[0].reads_as
        == "amount is at most 500 OR order_id is one of [1001, 1002]"
    )
    assert await verdict(either, args(amount=600.0, order_id="1001")) is None
    assert await verdict(either, args(amount=400.0, order_id="9")) is None
    assert "Rule not met: amount is at most 500 OR" in await verdict(
        either, args(amount=600.0, order_id="9")
    )


async def test_several_rules_on_a_binding_must_all_pass_and_the_denial_names_the_one_that_failed():
    book = book_with(
        {
            "name": "Refund up to 500",
            "binding": BINDING,
            "conditions": [{"field": "amount", "op": "is at most", "value": 500}],
        },
        {
            "name": "No rush",
            "binding": BINDING,
            "conditions": [{"field": "expedite", "op": "is false"}],
        },
    )
    assert await verdict(book, args()) is None
    assert 'rule "No rush"' in await verdict(book, args(expedite=True))
    assert 'rule "Refund up to 500"' in await verdict(book, args(amount=501.0))


async def test_cel_rules_and_their_reads_as():
    book = book_with(
        {
            "name": "Small A orders",
            "binding": BINDING,
            "cel": 'args.order_id.startsWith("A") && args.amount < 50.0 * 2.0',
        }
    )
    rule = book.rules_for("desk", "refund_order")[0]
    assert rule.is_cel and rule.reads_as.startswith("CEL: args.order_id.startsWith")
    assert await verdict(book, args(order_id="A7", amount=99.0)) is None
    assert (await verdict(book, args(order_id="A7", amount=100.0))).startswith("Rule not met: CEL:")


@pytest.mark.parametrize(
    "cel",
    ['subject["status"] == "member"', '"status" in subject', "size(args) > 0", "resource == {}"],
)
def test_a_cel_rule_that_reads_a_root_whole_is_refused_with_how_to_write_it(cel):
    """Only named attributes tell the rule book which trusted attributes to fetch: read whole, the
    rule would be evaluated against an empty subject and behave unlike its dotted twin."""
    with pytest.raises(
        RuleError,
        match=r"as a whole; name each attribute it needs, as (subject|args|resource)\.name",
    ):
        book_with({"name": "Members only", "binding": BINDING, "cel": cel})


def test_a_root_word_inside_a_string_is_no_read():
    book = book_with(
        {
            "name": "Not about subjects",
            "binding": BINDING,
            "cel": 'args.reason != "subject" && true',
        }
    )
    assert book.rules_for("desk", "refund_order")[0].is_cel


async def test_rules_reading_the_builtin_source_about_the_subject(tmp_path):
    db = open_db(tmp_path / "club.db")
    db.execute(
        "INSERT INTO principals (handle, name, status, created_at, admitted_at) "
        "VALUES ('ana', 'Ana', 'member', 'x', '2026-01-01T00:00:00.000000Z')"
    )
    book = book_with(
        {
            "name": "Members a month in",
            "binding": BINDING,
            "conditions": [
                {"field": "subject.admitted_days", "op": "is at least", "value": 30},
                {"field": "subject.status", "op": "is", "value": "member"},
            ],
        },
        db=db,
    )
    caller = replace(
        CALLER,
        identity=replace(ANA, principal_id=db.execute("SELECT id FROM principals").fetchone()[0]),
    )
    assert await book.check(caller, "refund_order", args()) is None
    db.execute("UPDATE principals SET admitted_at = ? ", ["2099-01-01T00:00:00.000000Z"])
    denial = await book.check(caller, "refund_order", args())
    assert denial.message.startswith(
        "Rule not met: subject.admitted_days is at least 30 AND subject.status is member"
    )


@pytest.mark.parametrize(
    "decl, message",
    [
        (
            {"conditions": [{"field": "amount", "op": "starts with", "value": "4"}]},
            "'starts with' is not an operator for number field 'amount'",
        ),
        (
            {"conditions": [{"field": "order_id", "op": "is at most", "value": 5}]},
            "'is at most' is not an operator for text field 'order_id'",
        ),
        (
            {"conditions": [{"field": "expedite", "op": "is", "value": True}]},
            "'is' is not an operator for boolean field 'expedite'",
        ),
        (
            {"conditions": [{"field": "amount", "op": "is at most", "attribute": "args.amount"}]},
            "never with another call argument",
        ),
        (
            {
                "conditions": [
                    {"field": "amount", "op": "is at most", "attribute": "subject.status"}
                ]
            },
            "'subject.status' is not a number trusted attribute",
        ),
        (
            {"conditions": [{"field": "colour", "op": "is", "value": "red"}]},
            "unknown field 'colour'",
        ),
        (
            {"conditions": [{"field": "order_id", "op": "is one of", "value": "A1"}]},
            "takes a non-empty list",
        ),
        ({"conditions": [{"field": "amount", "op": "is", "value": "lots"}]}, "is not a number"),
        ({"conditions": []}, "needs at least one condition"),
        ({"cel": "args.amount + 1.0"}, "must return a boolean, not float"),
        ({"cel": "subject.refund_limit > 1"}, "reads unknown attribute 'subject.refund_limit'"),
        ({"cel": "employee.limit > 1"}, "unknown variable(s) employee"),
        ({"cel": "args.amount >"}, "does not parse"),
        ({"cel": "true", "conditions": [{"field": "expedite", "op": "is true"}]}, "not both"),
    ],
)
def test_rules_that_cannot_be_published_say_why(decl, message):
    with pytest.raises(RuleError) as err:
        book_with({"name": "x", "binding": BINDING, **decl})
    assert message in str(err.value)


def test_unknown_bindings_are_refused():
    with pytest.raises(RuleError, match="unknown agent 'nobody'"):
        book_with(
            {"name": "x", "binding": {"agent": "nobody", "tool": "refund_order"}, "cel": "true"}
        )
    with pytest.raises(RuleError, match="unknown tool 'teleport'"):
        book_with({"name": "x", "binding": {"agent": "desk", "tool": "teleport"}, "cel": "true"})


async def test_draft_publish_remove_and_published_rules_are_never_edited(tmp_path):
    db = open_db(tmp_path / "club.db")
    book = book_with(db=db)
    decl = RuleDecl(
        name="Refund up to 300",
        binding=BINDING,
        conditions=[{"field": "amount", "op": "is at most", "value": 300}],
    )
    (rule_id,) = book.draft(decl)
    assert await verdict(book, args(amount=400.0)) is None  # a draft holds nothing back
    assert book.publish(rule_id) == [rule_id]
    assert "Rule not met: amount is at most 300" in await verdict(book, args(amount=400.0))
    with pytest.raises(RuleError, match=f"no draft rule {rule_id}"):
        book.publish(rule_id)  # published: it can only be removed
    assert [r["state"] for r in book.listing()] == ["published"]
    book.remove(rule_id)
    assert await verdict(book, args(amount=400.0)) is None
    with pytest.raises(RuleError, match="no draft or published rule"):
        book.remove(rule_id)
    bad = RuleDecl(name="bad", binding=BINDING, cel="args.amount")
    with pytest.raises(RuleError, match="must return a boolean"):
        book.draft(bad)
    assert db.execute("SELECT COUNT(*) FROM rules WHERE name = 'bad'").fetchone()[0] == 0


async def test_a_bindings_rules_run_as_one_program_and_judge_exactly_as_one_by_one(monkeypatch):
    from server.chokepoint import rulebook as rulebook_module

    book = book_with(
        {
            "name": "Refund up to 500",
            "binding": BINDING,
            "conditions": [{"field": "amount", "op": "is at most", "value": 500}],
        },
        {
            "name": "Reason is short",
            "binding": BINDING,
            "cel": "size(args.reason) < 5 // a note ends at the line",
        },
        {
            "name": "No rush",
            "binding": BINDING,
            "conditions": [{"field": "expedite", "op": "is false"}],
        },
    )
    rules = book.rules_for("desk", "refund_order")
    one_by_one: list[str] = []
    for rule in rules:  # count the rules that run on their own (a compiled rule is frozen)
        object.__setattr__(rule, "program", _Counted(rule.program, rule.name, one_by_one))
    assert await verdict(book, args()) is None
    assert 'rule "No rush"' in await verdict(
        book, args(expedite=True)
    )  # the comment swallowed nothing
    assert 'rule "Refund up to 500"' in await verdict(
        book, args(amount=501.0, expedite=True)
    )  # the first that failed
    assert one_by_one == []  # all three judged by the binding's one program
    # one that cannot be evaluated: they run one by one, and the first to fail in order is named
    assert (
        await verdict(book, {**args(), "reason": None})
        == 'Rule could not be evaluated: "Reason is short". The call was not made.'
    )
    assert one_by_one == ["Refund up to 500", "Reason is short"]
    assert 'rule "Refund up to 500"' in await verdict(book, {**args(amount=501.0), "reason": None})
    # rules that do not compile together: one by one, every time
    monkeypatch.setattr(rulebook_module, "together", lambda rules: None)
    book._revision = None
    book.refresh()
    one_by_one.clear()
    assert 'rule "No rush"' in await verdict(book, args(expedite=True))
    assert one_by_one == ["Refund up to 500", "Reason is short", "No rush"]


class _Counted:
    def __init__(self, program, name: str, ran: list[str]):
        self.program, self.name, self.ran = program, name, ran

    def execute(self, context):
        self.ran.append(self.name)
        return self.program.execute(context)


async def test_an_evaluation_error_is_a_denial_without_the_librarys_text():
    book = book_with(
        {"name": "Reason is short", "binding": BINDING, "cel": "size(args.reason) < 5"}
    )
    message = await verdict(book, {**args(), "reason": None})
    assert message == 'Rule could not be evaluated: "Reason is short". The call was not made.'


async def test_publishing_without_an_id_puts_every_draft_in_force(tmp_path):
    db = open_db(tmp_path / "club.db")
    book = book_with(db=db)
    low = RuleDecl(
        name="Refund up to 300",
        binding=BINDING,
        conditions=[{"field": "amount", "op": "is at most", "value": 300}],
    )
    plain = RuleDecl(
        name="No rush", binding=BINDING, conditions=[{"field": "expedite", "op": "is false"}]
    )
    ids = book.draft(low) + book.draft(plain)
    assert sorted(book.publish()) == sorted(ids)
    assert "Rule not met: amount is at most 300" in await verdict(book, args(amount=400.0))
    assert "Rule not met: expedite is false" in await verdict(book, args(expedite=True))
    assert book.publish() == []  # nothing left in draft


def test_the_listing_names_manifest_rules_by_origin_as_published():
    book = book_with(
        {
            "name": "Refund up to 500",
            "binding": BINDING,
            "conditions": [{"field": "amount", "op": "is at most", "value": 500}],
        }
    )
    assert book.listing() == [
        {
            "id": "manifest:0",
            "state": "published",
            "binding": "desk · parley · refund_order",
            "name": "Refund up to 500",
            "reads_as": "amount is at most 500",
            "problem": None,
            "removal_drafted": False,
        }
    ]


def test_a_manifest_rule_that_does_not_compile_is_named_by_its_own_message():
    from server.chokepoint.rulebook import manifest_rule_problems

    manifest = parse_manifest(
        MANIFEST + "rules:\n  - {name: Broken, binding: {agent: desk, tool: refund_order}, "
        "cel: 'args.amount'}\n"
    )
    specs = registry.load_all()
    schemas = {name: specs[name].input_schema() for name in manifest.tools}
    (problem,) = manifest_rule_problems(manifest, schemas)
    assert problem.path == ("rules", 0)
    assert str(problem) == "rule 'Broken': the CEL expression must return a boolean, not int"


async def test_whoami_tells_a_guest_of_a_rule_published_after_it_last_answered(tmp_path):
    """A guest has no identity to tell one revision from the next: the chokepoint's memory of a pure
    tool's answer is keyed on the rules in force too."""
    from server.access import Access
    from server.chokepoint.chokepoint import Chokepoint
    from server.identity.resolver import Resolver
    from server.keys.mandate import SigningKey
    from server.manifest.loading import load_manifest

    db = open_db(tmp_path / "club.db")
    manifest = load_manifest()
    key = SigningKey.load_or_create(tmp_path / "keys")
    chokepoint = Chokepoint(db, key, manifest)
    access = Access(manifest, Resolver(db, key, frozenset(manifest.scopes)))
    guest = access.guest()

    async def rule_names() -> list[str]:
        answers = [await chokepoint.call(access.from_header(None), "whoami", {}) for _ in range(2)]
        assert answers[0].structured_content == answers[1].structured_content
        return [rule["rule"] for rule in answers[1].structured_content["rules"]]

    assert "Say hello first" not in await rule_names()
    ids = chokepoint.rulebook.draft(
        RuleDecl.model_validate(
            {
                "name": "Say hello first",
                "binding": {"agent": guest.entry_persona or "", "tool": "whoami"},
                "cel": "true",
            }
        )
    )
    chokepoint.rulebook.publish(ids[0])
    assert "Say hello first" in await rule_names()


async def test_a_rule_replaced_goes_out_as_its_replacement_comes_in_at_one_publish(tmp_path):
    """Removing a rule in force `at_publish` keeps it in force until the publish that puts its replacement
    in force: no call goes through a gap with neither."""
    db = open_db(tmp_path / "club.db")
    book = book_with(db=db)
    (old,) = book.draft(
        RuleDecl(
            name="Refund up to 300",
            binding=BINDING,
            conditions=[{"field": "amount", "op": "is at most", "value": 300}],
        )
    )
    book.publish(old)
    book.remove(old, at_publish=True)
    assert "Rule not met: amount is at most 300" in await verdict(
        book, args(amount=320.0)
    )  # still in force
    with pytest.raises(RuleError, match="in the draft already"):
        book.remove(old, at_publish=True)  # and never removed at once by a second request
    book.keep(old)
    with pytest.raises(RuleError, match="has no drafted removal"):
        book.keep(old)
    book.remove(old, at_publish=True)
    (new,) = book.draft(
        RuleDecl(
            name="Refund up to 350",
            binding=BINDING,
            conditions=[{"field": "amount", "op": "is at most", "value": 350}],
        )
    )
    with pytest.raises(RuleError, match="changed since you looked"):
        book.publish(ids=[new], removals=[old, 999])
    assert "Rule not met: amount is at most 300" in await verdict(
        book, args(amount=320.0)
    )  # nothing changed
    assert book.publish() == [new]  # everything drafted: the new rule in, the old one out
    assert await verdict(book, args(amount=320.0)) is None
    assert "Rule not met: amount is at most 350" in await verdict(book, args(amount=400.0))
    assert [(r["name"], r["state"]) for r in book.listing()] == [("Refund up to 350", "published")]
    db.close()
