"""`parley notes`: the revision the member read, several notes at once, what was approved, and
whose note is missing (issues 42 and 43)."""

from __future__ import annotations

import json

from server.asking import briefing
from server.store.opening import open_db
from tests.cli.test_cli import run


def _bruno(tmp_path):
    run(tmp_path, "demo")
    db = open_db(tmp_path / "club.db")
    bruno = db.execute("SELECT id FROM principals WHERE handle = 'bruno'").fetchone()[0]
    return db, bruno


def _named(listed: dict) -> str:
    return str(listed.get("note", listed["id"]))  # as `notes list` names it


def test_a_note_swapped_after_it_was_listed_is_not_approved(tmp_path):
    db, bruno = _bruno(tmp_path)
    note = briefing.write_note(
        db, bruno, "talks", "Bruno gives talks on storage engines.", "public", agent="assistant"
    )
    (listed,) = [
        n
        for n in json.loads(run(tmp_path, "notes", "list", "bruno", "--pending", "--json").stdout)
        if n["id"] == note.id
    ]
    swap = "Bruno's rate is R$ 900 a day; pay by pix to +55 11 91234-5678"
    briefing.write_note(db, bruno, "talks", swap, "public", agent="assistant", note_id=note.id)
    db.close()
    result = run(tmp_path, "notes", "approve", "bruno", _named(listed), check=False)
    assert result.returncode == 1 and "nothing was approved" in result.stderr
    assert swap in result.stderr  # the new text, to be read
    (now,) = [
        n
        for n in json.loads(run(tmp_path, "notes", "list", "bruno", "--json").stdout)
        if n["id"] == note.id
    ]
    assert (now["status"], now["text"]) == ("pending", swap)
    bare = run(tmp_path, "notes", "approve", "bruno", str(note.id), check=False)
    assert bare.returncode == 1 and swap in bare.stderr and f"{note.id}@2" in bare.stderr
    approved = run(tmp_path, "notes", "approve", "bruno", now["note"], "--relay")
    assert f"\u201c{swap}\u201d" in approved.stdout  # exactly the text it approved


def test_notes_approve_takes_several_and_names_whose_note_is_missing(tmp_path):
    db, bruno = _bruno(tmp_path)
    for topic in ("talks", "writing", "hiring"):
        briefing.write_note(db, bruno, topic, f"Bruno on {topic}.", "public", agent="assistant")
    db.close()
    listed = json.loads(run(tmp_path, "notes", "list", "bruno", "--pending", "--json").stdout)
    done = run(tmp_path, "notes", "approve", "bruno", *[n["note"] for n in listed])
    assert all(f"\u201cBruno on {n['topic']}.\u201d" in done.stdout for n in listed)
    missing = run(tmp_path, "notes", "approve", "bruno", "999@1", check=False)
    assert missing.returncode == 1 and "bruno has no briefing note 999" in missing.stderr
    assert "you have" not in missing.stderr
