"""Member A's agent asks member B's agent; B decides in the console; A's inbox shows it."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest

from server.identity import principals as club_ops
from tests.conftest import connect
from tests.console_helpers import ConsoleUser


async def ask(client, member: str, question: str, language: str = "en", **extra) -> dict:
    result = await client.call_tool(
        "ask", {"member": member, "question": question, "language": language, **extra}
    )
    assert not result.is_error, result.content
    return result.structured_content


async def test_inside_the_mandate_findings_come_from_the_briefing(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        answer = await ask(bruno, "ana", "Is Ana available for new work, and when?")
    assert answer["answered"] is False and answer["interactionSummary"] is None
    assert answer["escalation_id"] is None and answer["openQuestions"] == []
    assert "taking on new work from February" in answer["findings"]
    assert answer["quotable"] is True and "may be quoted" in answer["findings"]
    assert answer["scopedRequest"] == "Is Ana available for new work, and when?"


async def test_members_notes_stay_closed_to_an_applicant(club):
    async with connect(club.url, club.tokens.applicant.token) as carla:
        answer = await ask(carla, "ana", "Is Ana available for new work?")
    assert "February" not in (answer["findings"] or "")
    assert answer["escalation_id"] is not None  # nothing it may tell an applicant: Ana decides


async def test_outside_the_mandate_escalates_and_the_console_answer_reaches_the_inbox(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        answer = await ask(bruno, "ana", "What is Ana's favourite film?")
        assert answer["openQuestions"] == ["What is Ana's favourite film?"]
        escalation = answer["escalation_id"]
        assert escalation is not None
        async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
            queue = await ana.get("/console/queue")
            assert "What is Ana&#39;s favourite film?" in queue.text and "@bruno" in queue.text
            decided = await ana.post(
                f"/console/queue/{escalation}",
                {"action": "answer", "text": "Paris, Texas."},
                page="/console/queue",
            )
            assert decided.status_code == 303
            again = await ana.post(
                f"/console/queue/{escalation}", {"action": "decline"}, page="/console/queue"
            )
            # a second decision is refused as a conflict, on the queue page, and changes nothing
            assert again.status_code == 409, again.status_code
            assert f"{escalation} was already answered" in again.text
        inbox = (await bruno.call_tool("inbox", {})).structured_content["threads"]
        thread = next(t for t in inbox if t["thread_id"] == answer["thread_id"])
        assert [m["kind"] for m in thread["messages"]] == ["question", "escalation", "decision"]
        assert thread["messages"][-1]["quoted"] == {"quoted": "Paris, Texas.", "by": "ana"}


async def test_widening_the_mandate_answers_from_the_briefing(club):
    db = club.db()
    ana = club_ops.find_principal(db, "ana")
    db.insert(
        "briefing",
        {
            "principal_id": ana.id,
            "topic": "travel",
            "text": "Ana is in Porto the first week of May.",
            "visibility": "members",
            "created_at": "2026-01-01T00:00:00.000000Z",
            "updated_at": "2026-01-01T00:00:00.000000Z",
        },
    )
    db.close()
    async with connect(club.url, club.tokens.member.token) as bruno:
        answer = await ask(bruno, "ana", "Where will Ana travel in May?")
        assert answer["escalation_id"] is not None and "Porto" not in (answer["findings"] or "")
        async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as console:
            done = await console.post(
                f"/console/queue/{answer['escalation_id']}",
                {"action": "widen", "text": "travel"},
                page="/console/queue",
            )
            assert done.status_code == 303
        thread = next(
            t
            for t in (await bruno.call_tool("inbox", {})).structured_content["threads"]
            if t["thread_id"] == answer["thread_id"]
        )
        assert "Porto" in thread["messages"][-1]["body"]
        assert [q["quoted"] for q in thread["messages"][-1]["quotes"]] == [
            "Ana is in Porto the first week of May."
        ]
        again = await ask(
            bruno, "ana", "Where will Ana travel in May?", thread_id=answer["thread_id"]
        )
        assert "Porto" in again["findings"] and again["escalation_id"] is None


async def test_commitments_are_escalated_not_made(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        for question in (
            "Can Ana accept the offer for the March project?",
            "Book Ana on Tuesday at 3",
            "What is Ana's day rate?",
            "A Ana aceita o projeto de março?",
        ):
            language = "pt-BR" if question.startswith("A Ana") else "en"
            answer = await ask(bruno, "ana", question, language)
            assert answer["escalation_id"] is not None, question
            assert "negotiated" not in (answer["findings"] or "")
    db = club.db()
    reasons = [r[0] for r in db.execute("SELECT reason FROM escalations ORDER BY id").fetchall()]
    db.close()
    assert reasons == ["commitment"] * 4


@pytest.mark.filterwarnings(
    "ignore:resources/subscribe is removed"
)  # the handshake era is tested on purpose
@pytest.mark.stateful_sessions  # pushed to a handshake-era session: stateless sessions have no stream
async def test_a_subscribed_session_hears_of_the_decision(club):
    updated = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.set()

    async with connect(
        club.url, club.tokens.member.token, "legacy", message_handler=on_message
    ) as bruno:
        resources = await bruno.list_resources()
        assert "parley://inbox" in [str(r.uri) for r in resources.resources]
        await bruno.subscribe_resource("parley://inbox")
        answer = await ask(bruno, "ana", "What is Ana's favourite colour?")
        async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
            await ana.post(
                f"/console/queue/{answer['escalation_id']}",
                {"action": "answer", "text": "Blue."},
                page="/console/queue",
            )
        with anyio.fail_after(10):
            await updated.wait()
        read = await bruno.read_resource("parley://inbox")
        assert "Blue." in read.contents[0].text


async def test_a_2026_listen_stream_hears_of_the_decision(club):
    async with connect(club.url, club.tokens.member.token, "auto") as bruno:
        answer = await ask(bruno, "ana", "What is Ana's favourite season?")
        async with bruno.listen(resource_subscriptions=["parley://inbox"]) as subscription:
            async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
                await ana.post(
                    f"/console/queue/{answer['escalation_id']}",
                    {"action": "decline"},
                    page="/console/queue",
                )
            heard = []
            with anyio.fail_after(10):
                async for event in subscription:
                    heard.append(event)
                    break
            assert heard, "the stream ended without a notification"
            assert getattr(heard[0], "uri", None) == "parley://inbox"


async def test_ask_refuses_what_it_cannot_do(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        for args, message in (
            ({"member": "carla", "question": "Hello there?"}, "no member with handle 'carla'"),
            ({"member": "bruno", "question": "Hello there?"}, "cannot ask your own"),
            ({"member": "ana", "question": "Hi?", "thread_id": 999}, "no thread 999"),
        ):
            result = await bruno.call_tool("ask", args)
            assert result.is_error and message in result.content[0].text
