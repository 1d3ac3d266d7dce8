"""`parley queue`: a member's queue from the command line, against a running club: the ID is the
`escalation_id` the asker's `ask` named; a decision reaches the asker's inbox, is final, and teaches
the note it points at; every refusal is one line on stderr, exit 1, and changes nothing."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import run
from tests.conftest import connect

FILM = "What is Ana's favourite film?"


async def asked(client, question: str) -> dict:
    result = await client.call_tool("ask", {"member": "ana", "question": question})
    assert not result.is_error and result.structured_content["escalation_id"] is not None
    return result.structured_content


def decisions(thread: dict) -> list[dict]:
    return [m for m in thread["messages"] if m["kind"] == "decision"]


async def inbox_thread(client, thread_id: int) -> dict:
    threads = (await client.call_tool("inbox", {})).structured_content["threads"]
    return next(t for t in threads if t["thread_id"] == thread_id)


async def test_list_then_answer_with_a_note_reaches_the_askers_inbox_once(club, tmp_path):
    async with connect(club.url, club.tokens.member.token) as bruno:
        film = await asked(bruno, FILM)
        listed = json.loads(run(tmp_path, "queue", "list", "ana", "--json").stdout)
        [item] = [row for row in listed if row["id"] == film["escalation_id"]]
        assert (item["question"], item["asker"], item["reason"]) == (
            FILM,
            "bruno",
            "outside_mandate",
        )
        assert item["why"] and all(set(note) == {"id", "text"} for note in item["candidates"])
        table = run(tmp_path, "queue", "list", "ana").stdout
        assert table.startswith("ID") and FILM in table
        db = club.db()
        design, text = db.execute(
            "SELECT b.id, b.text FROM briefing b JOIN principals p ON p.id = b.principal_id "
            "WHERE p.handle = 'ana' AND b.topic = 'design'"
        ).fetchone()
        done = run(
            tmp_path, "queue", "answer", "ana", str(film["escalation_id"]), "--note", str(design)
        )
        assert done.stdout == (
            f"question {film['escalation_id']} of ana answered; the question is now an example "
            f"of note {design}\n"
        )
        again = run(tmp_path, "queue", "decline", "ana", str(film["escalation_id"]), check=False)
        assert (again.returncode, again.stderr) == (
            1,
            f"error: question {film['escalation_id']} was already answered\n",
        )
        [decision] = decisions(await inbox_thread(bruno, film["thread_id"]))
        assert f"\u201c{text}\u201d (note {design}, " in decision["body"]
        assert (decision["status"], decision["decided_by"]) == ("decided", "ana")
        assert json.loads(run(tmp_path, "queue", "list", "ana", "--json").stdout) == [
            row for row in listed if row["id"] != film["escalation_id"]
        ]
    assert db.execute(
        "SELECT question, decided_via, session_id FROM note_examples WHERE note_id = ?", [design]
    ).fetchall() == [(FILM, "cli", None)]


async def test_answer_in_words_saved_as_a_note_and_decline(club, tmp_path):
    async with connect(club.url, club.tokens.member.token) as bruno:
        film = await asked(bruno, FILM)
        tree = await asked(bruno, "What is Ana's favourite tree?")
        run(
            tmp_path,
            "queue", "answer", "ana", str(film["escalation_id"]),
            "--text", "Paris, Texas.", "--save-note", "--topic", "films",
        )  # fmt: skip
        run(tmp_path, "queue", "decline", "ana", str(tree["escalation_id"]))
        [answered] = decisions(await inbox_thread(bruno, film["thread_id"]))
        [declined] = [
            m
            for m in (await inbox_thread(bruno, tree["thread_id"]))["messages"]
            if m["kind"] == "decline"
        ]
    assert "\u201cParis, Texas.\u201d (note " in answered["body"]
    assert [q["quoted"] for q in answered["quotes"]] == ["Paris, Texas."]  # the note, as data
    # ana wrote nothing: the decline is Parley's sentence, never quoted as her words, and says who decided
    assert (declined["body"], declined["quoted"], declined["decided_by"]) == (
        "Declined by the member.",
        None,
        "ana",
    )
    notes = json.loads(run(tmp_path, "notes", "list", "ana", "--json").stdout)
    assert [(n["topic"], n["status"], n["text"]) for n in notes if n["topic"] == "films"] == [
        ("films", "approved", "Paris, Texas.")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--note", "1", "--text", "x"], 'answer with --note NOTE_ID or with --text "..." (one of them)'),
        ([], 'answer with --note NOTE_ID or with --text "..." (one of them)'),
        (["--text", "x", "--save-note"], "--save-note and --topic go together: the note's topic"),
        (["--text", "x", "--topic", "t"], "--save-note and --topic go together: the note's topic"),
        (["--text", "  "], "write the answer you want delivered"),
        (["--note", "4"], "note 4 cannot go to @bruno: you keep it for yourself; answer in your own words"),
        (["--note", "5"], "note 5 is not one of your approved notes"),
    ],
)  # fmt: skip
async def test_refusals_are_one_line_exit_1_and_change_nothing(club, tmp_path, args, message):
    async with connect(club.url, club.tokens.member.token) as bruno:
        film = await asked(bruno, FILM)
    refused = run(
        tmp_path, "queue", "answer", "ana", str(film["escalation_id"]), *args, check=False
    )
    assert (refused.returncode, refused.stderr, refused.stdout) == (1, f"error: {message}\n", "")
    db = club.db()
    assert (
        db.execute(
            "SELECT status FROM escalations WHERE id = ?", [film["escalation_id"]]
        ).fetchone()[0]
        == "open"
    )
    assert db.execute("SELECT COUNT(*) FROM note_examples").fetchone()[0] == 0
    # another member's question, or none: not in ana's queue
    missing = run(tmp_path, "queue", "decline", "bruno", str(film["escalation_id"]), check=False)
    assert (missing.returncode, missing.stderr) == (
        1,
        f"error: there is no question {film['escalation_id']} in bruno's queue; "
        "'parley queue list bruno' shows the open ones\n",
    )
