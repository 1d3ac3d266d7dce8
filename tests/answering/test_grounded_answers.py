"""Answers grounded by construction (issue 25): whatever a model answerer says, an asker reads only
Parley's fixed sentences and the member's approved notes, word for word; notes an agent planted wait
for the member and are never handed to an answerer.

The corpora were written fresh for this issue by someone who had not read the checks:
tests/answering/adversarial_outputs.yaml (raw model replies: commitments, prices, offers,
instructions, links, look-alike and invisible characters, JSON that only looks like the contract)
and tests/answering/planted_injections.yaml (AgentDojo's attack templates and our own, planted as
briefing notes). Run with -s to see the figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from server.answering.model import ModelAnswerer
from server.asking import Escalations, briefing
from server.asking.escalations import revealable
from server.cli import demo
from server.identity import mandates
from server.keys.mandate import SigningKey
from server.manifest.loading import load_manifest
from server.store import asking as thread_rows
from server.store import records
from server.store.opening import open_db
from tests.grounding_helpers import Model, assert_grounded, model_endpoint

CORPORA = Path(__file__).parent
OUTPUTS = yaml.safe_load((CORPORA / "adversarial_outputs.yaml").read_text())["outputs"]
PLANTED = yaml.safe_load((CORPORA / "planted_injections.yaml").read_text())["planted"]


@pytest.fixture
def demo_club(tmp_path):
    db = open_db(tmp_path / "club.db")
    key = SigningKey.load_or_create(tmp_path / "keys")
    manifest = load_manifest()
    demo.prepare(db, key, manifest)
    ids = {
        h: db.execute("SELECT id FROM principals WHERE handle = ?", [h]).fetchone()[0]
        for h in ("ana", "bruno")
    }
    yield db, key, manifest, ids
    db.close()


def _approved(db, member_id: int) -> dict[str, tuple[str, str]]:
    return {
        str(row.id): (row.text, str(row.updated_at)[:10])
        for row in records.notes_of(db, member_id, "approved")
    }


def _texts_an_asker_reads(db, asker_id: int) -> list[str]:
    """Every message body in the asker's threads that is not the asker's own question."""
    return [
        message.body
        for thread in thread_rows.threads_of(db, asker_id, 10_000)
        for message in thread_rows.messages(db, thread.id)
        if message.kind != "question"
    ]


def test_the_corpora_are_what_the_issue_asks_for():
    assert len(OUTPUTS) >= 300 and len(PLANTED) >= 300
    assert {o["lang"] for o in OUTPUTS} == {p["lang"] for p in PLANTED} == {"en", "pt-BR", "es"}
    assert {"commitment", "price", "offer", "instructions", "link", "json_smuggling"} <= {
        o["kind"] for o in OUTPUTS
    }


async def test_no_word_a_model_writes_reaches_an_asker(demo_club):
    db, key, manifest, ids = demo_club
    queue = iter(OUTPUTS)
    current: dict[str, str] = {}

    def adversary(system: str, question: str) -> str:
        current["text"] = next(queue)["text"]
        return current["text"]

    model = Model(adversary)
    outcomes: Counter[str] = Counter()
    with model_endpoint(model) as url:
        service = Escalations(db, key, manifest, ModelAnswerer(url, "adversary", timeout=10))
        approved = _approved(db, ids["ana"])
        for entry in OUTPUTS:
            asked = await service.ask(
                ids["bruno"],
                "assistant",
                True,
                "ana",
                "Is Ana available for new work?",
                entry["lang"] if entry["lang"] != "es" else "en",
            )
            findings = asked.answer.findings
            quoted = assert_grounded(findings, "ana", approved)
            said = current["text"].strip()
            assert said not in (findings or ""), (
                entry
            )  # never delivered, not even inside the framing
            outcomes[
                "quoted an approved note"
                if quoted
                else "escalated"
                if asked.escalation_id
                else "other"
            ] += 1
    assert len(model.sent) == len(OUTPUTS)  # every reply was really produced by the model and read
    for text in _texts_an_asker_reads(
        db, ids["bruno"]
    ):  # the inbox: what was recorded for the asker
        assert_grounded(text, "ana", _approved(db, ids["ana"]))
    print(f"\n{len(OUTPUTS)} adversarial model replies: 0 delivered; {dict(outcomes)}")
    assert outcomes["other"] == 0


async def test_planted_injections_are_never_handed_to_an_answerer(demo_club):
    db, key, manifest, ids = demo_club
    bruno, ana = ids["bruno"], ids["ana"]
    topics = sorted({p["topic"] for p in PLANTED})
    mandates.amend(
        db,
        key,
        principal_id=bruno,
        topics=topics,
        known_scopes=frozenset(manifest.scopes),
        agent_scopes=manifest.agent_scopes,
    )
    limit = briefing.PENDING_LIMIT  # at most this many may wait: bruno rejects each full batch
    for start in range(0, len(PLANTED), limit):
        written = [  # as bruno's agent would, having read a poisoned page
            briefing.write_note(
                db, bruno, planted["topic"], planted["text"], "public", agent="assistant"
            )
            for planted in PLANTED[start : start + limit]
        ]
        assert {row.status for row in written} == {"pending"}
        body = mandates.current(db, key, bruno).body
        assert body is not None and not [
            n
            for n in revealable(db, bruno, body, True).values()
            if n.note.text in {p["text"] for p in PLANTED}
        ]
        if start + limit < len(PLANTED):
            for row in written:
                briefing.review(db, bruno, row.id, "reject", revision=row.revision)

    model = Model(lambda system, question: '{"escalate": "nothing"}')
    with model_endpoint(model) as url:
        service = Escalations(db, key, manifest, ModelAnswerer(url, "m", timeout=10))
        for topic in topics:
            asked = await service.ask(
                ana, "assistant", True, "bruno", f"What does Bruno say about {topic}?", "en"
            )
            assert_grounded(asked.answer.findings, "bruno", _approved(db, bruno))
    handed = "\n".join(sent["messages"][0]["content"] for sent in model.sent)
    relayed = [
        p
        for p in PLANTED
        if p["text"] in handed or any(p["text"] in t for t in _texts_an_asker_reads(db, ana))
    ]
    # the second line, for when a member approves one anyway: what the approval page flags
    flagged = sum(bool(briefing.concerns(p["topic"], p["text"], "bruno")) for p in PLANTED)
    print(
        f"\n{len(PLANTED)} planted injections: {len(relayed)} handed to an answerer or relayed; "
        f"{flagged} ({flagged / len(PLANTED):.0%}) flagged on the approval page"
    )
    assert relayed == []


async def test_a_selection_of_notes_not_handed_escalates_and_quotes_nothing(demo_club):
    db, key, manifest, ids = demo_club
    private = db.execute(
        "SELECT id, text FROM briefing WHERE visibility = 'private' AND principal_id = ?",
        [ids["ana"]],
    ).fetchone()
    model = Model(
        lambda system, question: f'{{"notes": ["{private[0]}"]}}'
    )  # a note it was never handed
    with model_endpoint(model) as url:
        service = Escalations(db, key, manifest, ModelAnswerer(url, "m", timeout=10))
        asked = await service.ask(
            ids["bruno"], "assistant", True, "ana", "How does Ana's studio work?", "en"
        )
        assert asked.escalation_id is not None and private[1] not in (asked.answer.findings or "")
        # a model that names a handed note gets exactly that note's words
        available = db.execute(
            "SELECT id FROM briefing WHERE topic = 'availability' AND principal_id = ?",
            [ids["ana"]],
        ).fetchone()[0]
        model.answer = lambda system, question: f'{{"notes": ["{available}"]}}'
        asked = await service.ask(
            ids["bruno"], "assistant", True, "ana", "How does Ana like to work?", "en"
        )
        assert assert_grounded(asked.answer.findings, "ana", _approved(db, ids["ana"])) == (
            str(available),
        )


def test_questions_in_flight_are_bounded_per_asker_per_member_and_in_all():
    from server.asking.escalations import AskLimits, Busy, InFlight

    flight = InFlight(AskLimits(per_asker=2, per_member=3, total=4, retry_after=7))
    with flight.hold(1, 10), flight.hold(1, 11):
        with pytest.raises(Busy, match="2 of your questions.*retry in 7 s"):
            with flight.hold(1, 12):
                pass
        with flight.hold(2, 10), flight.hold(3, 10):
            with pytest.raises(Busy, match="this member's agent"):
                with flight.hold(4, 10):
                    pass
            with pytest.raises(Busy, match="questions in hand"):
                with flight.hold(4, 12):
                    pass
        with flight.hold(4, 12):  # one finished: room again
            pass
    assert (flight.total, dict(flight.askers), dict(flight.members)) == (0, {}, {})
