"""An answer that commits the member is never delivered: not after a "but" that follows a refusal,
not in the future tense, in English, Portuguese or Spanish; end to end, it escalates."""

from __future__ import annotations

import pytest

from server.answering import Answer
from server.answering.checks import check_output, commits, problem
from server.identity import principals as club_ops
from tests.conftest import connect

AFTER_A_BREAK = [
    "Ana cannot meet on Monday, but she accepts the offer for March.",
    "Ana cannot meet on Monday but she accepts the offer for March.",
    "Ana is not free this week; however, she accepts the offer for March.",
    "Ana is not free on Monday, yet she agrees to the March dates.",
    "Ana não pode na segunda, mas aceita a proposta de março.",
    "Ana no puede el lunes, pero acepta la propuesta de marzo.",
]
FUTURE = [
    ("Ana aceitará a proposta.", "pt-BR"),
    ("Ela aceitará o projeto de março.", "pt-BR"),
    ("Ana assinará o contrato.", "pt-BR"),
    ("Ana confirmará a data.", "pt-BR"),
    ("Ana aceptará la propuesta.", "pt-BR"),
    ("Ana firmará el contrato.", "pt-BR"),
]
HARMLESS = ["Ana cannot meet on Monday.", "Ana will not accept the offer.", "Ana não aceitará a proposta."]


def _withheld_as_commitment(text: str, language: str) -> None:
    checked = check_output(Answer(answered=False, scopedRequest="q", findings=text), language, [], "ana")
    assert checked.escalate == "commitment" and checked.findings is None, text
    assert checked.openQuestions == ["q"]


@pytest.mark.parametrize("text", AFTER_A_BREAK)
def test_a_commitment_after_but_is_seen(text):
    assert commits(text, "en", "ana"), text
    assert commits(text, "pt-BR", "ana"), text
    assert problem(text, "en", "ana") == "commitment"
    _withheld_as_commitment(text, "en")


@pytest.mark.parametrize("text, language", FUTURE)
def test_a_future_tense_commitment_is_seen(text, language):
    assert commits(text, language, "ana"), text
    assert commits(text, "en", "ana"), text  # whatever language was declared
    _withheld_as_commitment(text, language)


@pytest.mark.parametrize("text", HARMLESS)
def test_the_refusal_alone_is_delivered(text):
    assert not commits(text, "en", "ana") and not commits(text, "pt-BR", "ana")


@pytest.mark.parametrize("note", [AFTER_A_BREAK[0], FUTURE[0][0]])
async def test_a_briefing_note_that_commits_is_not_delivered_end_to_end(club, note):
    db = club.db()
    ana = club_ops.find_principal(db, "ana")
    db.execute("UPDATE briefing SET text = ? WHERE principal_id = ? AND topic = 'availability'", [note, ana.id])
    db.close()
    async with connect(club.url, club.tokens.member.token) as bruno:
        result = await bruno.call_tool("ask", {"member": "ana", "question": "Is Ana available for new work, and when?",
                                               "language": "en"})
    assert not result.is_error, result.content
    answer = result.structured_content
    assert answer["escalation_id"] is not None and answer["findings"] is None
    assert answer["openQuestions"] == ["Is Ana available for new work, and when?"]
    db = club.db()
    reason = db.execute("SELECT reason FROM escalations WHERE id = ?", [answer["escalation_id"]]).fetchone()[0]
    db.close()
    assert reason == "commitment"
