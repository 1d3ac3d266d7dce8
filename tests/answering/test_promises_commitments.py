"""A note that commits the member is flagged (not after a "but" that follows a refusal, not in the
future tense, in English, Portuguese or Spanish) and, approved without "relay as written", is never
quoted: end to end, the question escalates with the note attached for the member."""

from __future__ import annotations

import pytest

from server.answering.checks import commits, flags
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
HARMLESS = [
    "Ana cannot meet on Monday.",
    "Ana will not accept the offer.",
    "Ana não aceitará a proposta.",
]


def _withheld_as_commitment(text: str) -> None:
    assert "commitment" in flags(text, "ana"), text


@pytest.mark.parametrize("text", AFTER_A_BREAK)
def test_a_commitment_after_but_is_seen(text):
    assert commits(text, "en", "ana"), text
    assert commits(text, "pt-BR", "ana"), text
    _withheld_as_commitment(text)


@pytest.mark.parametrize("text, language", FUTURE)
def test_a_future_tense_commitment_is_seen(text, language):
    assert commits(text, language, "ana"), text
    assert commits(text, "en", "ana"), text  # whatever language was declared
    _withheld_as_commitment(text)


@pytest.mark.parametrize("text", HARMLESS)
def test_the_refusal_alone_is_delivered(text):
    assert not commits(text, "en", "ana") and not commits(text, "pt-BR", "ana")


@pytest.mark.parametrize("note", [AFTER_A_BREAK[0], FUTURE[0][0]])
async def test_a_briefing_note_that_commits_is_not_delivered_end_to_end(club, note):
    db = club.db()
    ana = club_ops.find_principal(db, "ana")
    db.execute(
        "UPDATE briefing SET text = ? WHERE principal_id = ? AND topic = 'availability'",
        [note, ana.id],
    )
    db.close()
    async with connect(club.url, club.tokens.member.token) as bruno:
        result = await bruno.call_tool(
            "ask",
            {
                "member": "ana",
                # a question the matcher is sure the note answers (#46: it abstains unless sure)
                "question": "When is Ana available?",
                "language": "en",
            },
        )
    assert not result.is_error, result.content
    answer = result.structured_content
    assert answer["escalation_id"] is not None and note not in answer["findings"]
    assert answer["openQuestions"] == ["When is Ana available?"]
    db = club.db()
    reason, attached = db.execute(
        "SELECT reason, notes FROM escalations WHERE id = ?", [answer["escalation_id"]]
    ).fetchone()
    note_id = db.execute("SELECT id FROM briefing WHERE text = ?", [note]).fetchone()[0]
    db.close()
    assert (
        reason == "commitment" and attached == f'["{note_id}"]'
    )  # the member sees which note it would quote


# Found by the mutation run (scripts/mutate): each branch that defuses a generic object is held by
# a sentence of its own, so a checker that withholds these harmless answers fails here, not only in
# the corpus's error rate.
HABITS_AND_NOTHING = [
    "Ana signs her contracts in person.",  # a possessive and a plural: a habit
    "Ana signs Bruno's contracts herself.",
    "Ana has booked no new clients.",  # nothing committed
    "Ana reservou nenhuma data.",
    "Ana reservou nenhum estúdio.",
    "Ana reservó ningún estudio.",
    "Ana reservó ninguna fecha.",
    "Ana reservó ningun estudio.",
    "Ana books zero clients.",
    "Ana accepts mostly commissions.",  # skipped words before the object
    "Ana accepts occasionally commissions.",
    "Ana books new clients.",
    "Ana no acepta la propuesta.",  # Spanish "no" negates (Portuguese "no" is "in the")
    "Ana no firma contratos.",
    "Ana accepts exclusively commissions.",  # an adverb in -ly before the object
]
SPECIFIC = [
    "Ana signs her contract.",
    "Ana books it.",
    "Ana vai assinar o contrato.",
    "Va a aceptar la propuesta.",
    "Ana is going to sign the contract.",
    # what licenses a verb that is also a noun: no prefix, a subject, an auxiliary, a copula
    "Ana accepts the offer herself.",
    "Ana personally accepted the offer.",
    "Sign the contract.",
    "Ana está agendando a sessão.",
    "It's booked for Friday.",
    "Ana will book the studio.",
    "Estoy reservando el estudio.",
    "Ana is scheduling the session.",
    "I'm booking the studio.",
    "Ana was booking the studio.",
    "You're booking the studio.",
    "They are booking the studio.",
    "Ana has booked the studio.",
    "Ana had booked the studio.",
    "Ana ficou agendando a sessão.",
    "Ana foi agendando a sessão.",
    "We are booking the studio.",
    "Ana tem agendado a sessão.",
    "Hemos reservado el estudio.",
    "She is booking the studio.",
    "Ana books me for Friday.",
    "Ana aceita trabalhando no sábado.",
    "Ana accepts working Saturday.",
    "Ana es contratando el estudio.",
    "Ana accepts gladly the offer for March.",
]
# After "va a"/"vamos a" the "a" once read as an article, so a verb that is also a noun ("firma",
# "reserva") was taken for a noun and the commitment delivered: before an infinitive it is no article.
PERIPHRASTIC = [
    "Ana va a firmar el contrato.",
    "Va a firmar el contrato.",
    "Vamos a firmar el contrato.",
    "Ella va a reservar el estudio.",
    "Iban a reservar el estudio para ti.",
]
# "she's"/"he's" once licensed nothing, so "She's booking the studio for you on Friday." was delivered:
# a subject pronoun contracted with "is" or "has" licenses the verb like "she is".
CONTRACTED = [
    "She's booking the studio for you on Friday.",
    "He's signing the contract.",
    "She's reserving the room.",
    "They're booking the studio for you.",
]


@pytest.mark.parametrize("text", HABITS_AND_NOTHING)
def test_a_habit_or_nothing_committed_is_delivered(text):
    assert not commits(text, "en", "ana") and not commits(text, "pt-BR", "ana"), text


@pytest.mark.parametrize("text", SPECIFIC)
def test_this_very_thing_commits(text):
    assert commits(text, "en", "ana") and commits(text, "pt-BR", "ana"), text


# ... while a noun after "va a la", a negation or a plain noun use after "she's" still commit nobody
STILL_NOTHING = [
    "Ana no va a firmar el contrato.",
    "Ana va a la firma del contrato.",
    "She's a booking agent.",
    "She's not booking anything yet.",
]


@pytest.mark.parametrize("text", STILL_NOTHING)
def test_the_periphrasis_and_contraction_license_only_a_verb(text):
    assert not commits(text, "en", "ana"), text


@pytest.mark.parametrize("text", PERIPHRASTIC)
def test_spanish_periphrastic_future_commits(text):
    assert commits(text, "pt-BR", "ana"), text


@pytest.mark.parametrize("text", CONTRACTED)
def test_a_contracted_subject_commits(text):
    assert commits(text, "en", "ana"), text
