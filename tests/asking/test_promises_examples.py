"""The promises around a member's examples, over real HTTP against a running club: an example of ana's
never reaches bruno (every tool result his agent can get, every resource, every console page he can
open), and no agent makes one (no tool reaches the queue; a console decision without a console session
is a sign-in page, and changes nothing)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import httpx2

from server.asking import Escalations
from server.asking.queue import COMMAND_LINE, Decision, Queue
from server.identity import principals
from tests.conftest import connect
from tests.console_helpers import ConsoleUser

SECRET = "Would Ana ever take a job from Quetzal Motors?"
MARK = "Quetzal"
SERVER = Path(__file__).resolve().parents[2] / "server"

# What each tool is called with; every tool the caller sees must be here, so a new tool is walked too.
ARGS: dict[str, dict] = {
    "about_club": {},
    "whoami": {},
    "apply": {"name": "Someone", "statement": "I would like to join."},
    "my_profile": {},
    "my_mandate": {},
    "plan": {"turn": "ask ana whether she would take a job from a car maker"},
    "log_evidence": {"kind": "talk", "title": "A talk on car makers"},
    "list_evidence": {},
    "ask": {"member": "ana", "question": "Would Ana ever take a job from a car maker?"},
    "inbox": {},
    "search_directory": {"query": "ana"},
    "view_member": {"handle": "ana"},
    "update_briefing": {"topic": "cars", "text": "Bruno drives a car.", "visibility": "members"},
    "list_briefing": {},
    "amend_mandate": {"quotable": True},
}


def teach(club) -> tuple[int, int]:
    """Carla asked Ana SECRET; Ana points at her design note (as `parley queue answer` does)."""
    db = club.db()
    ana = principals.find_principal(db, "ana").id
    [escalation] = [
        row[0] for row in db.execute("SELECT id FROM escalations WHERE question = ?", [SECRET])
    ]
    design = db.execute(
        "SELECT id FROM briefing WHERE principal_id = ? AND topic = 'design'", [ana]
    ).fetchone()[0]
    queue = Queue(Escalations(db, club.key(), club.manifest()))
    queue.decide(ana, escalation, Decision("note", note_id=design), COMMAND_LINE)
    assert db.execute("SELECT COUNT(*) FROM note_examples").fetchone()[0] == 1
    return escalation, design


def console_pages() -> list[str]:
    """Every console page a signed-in member can open without naming an id, as the web folder
    declares them (a new page is walked too)."""
    found = {
        path
        for module in (SERVER / "web").glob("*.py")
        for path in re.findall(
            r'Route\(\s*"(/console[^"{]*)",[^)]*methods=\["GET"\]', module.read_text()
        )
    }
    assert {"/console", "/console/queue", "/console/notes", "/console/activity"} <= found
    return sorted(found)


async def everything_seen(client) -> list[str]:
    """The text of every tool result and resource this client's agent can get."""
    listed = [tool.name for tool in (await client.list_tools()).tools]
    assert set(listed) <= set(ARGS), f"walk these tools too: {set(listed) - set(ARGS)}"
    seen = []
    for name in listed:
        result = await client.call_tool(name, ARGS[name])
        seen.append(json.dumps(result.structured_content, ensure_ascii=False))
        seen += [getattr(part, "text", "") for part in result.content]
    for resource in (await client.list_resources()).resources:
        seen += [
            getattr(part, "text", "")
            for part in (await client.read_resource(resource.uri)).contents
        ]
    return seen


async def test_an_example_of_anas_never_reaches_bruno(club):
    async with connect(club.url, club.tokens.applicant.token) as carla:
        asked = await carla.call_tool("ask", {"member": "ana", "question": SECRET})
        assert asked.structured_content["escalation_id"] is not None
    teach(club)
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        notes = (await ana.get("/console/notes")).text
        assert MARK in notes and "Answers questions like" in notes  # Ana sees her own example
    async with connect(club.url, club.tokens.member.token) as bruno:
        seen = await everything_seen(bruno)
    assert len(seen) > 20 and not [text for text in seen if MARK in text]
    async with ConsoleUser(club.live.base, "bruno", club.tokens.passwords["bruno"]) as bruno:
        for path in console_pages():
            page = await bruno.get(path)
            assert page.status_code in (200, 303, 403, 404), (path, page.status_code)
            assert MARK not in page.text, path


async def test_no_agent_makes_an_example(club):
    async with connect(club.url, club.tokens.member.token) as bruno:
        asked = await bruno.call_tool(
            "ask", {"member": "ana", "question": "What is Ana's favourite film?"}
        )
    escalation = asked.structured_content["escalation_id"]
    db = club.db()
    design = db.execute("SELECT id FROM briefing WHERE topic = 'design'").fetchone()[0]
    # Ana's own principal token, every tool it may call: none writes an example or decides
    async with connect(club.url, club.tokens.steward_principal.token) as ana:
        assert "amend_mandate" in [tool.name for tool in (await ana.list_tools()).tools]
        await everything_seen(ana)
    # the Queue's form with an agent's token and no console session: a sign-in page, nothing decided
    for token in (club.tokens.steward_principal.token, club.tokens.member.token):
        async with httpx2.AsyncClient(base_url=club.live.base, timeout=30) as http:
            refused = await http.post(
                f"/console/queue/{escalation}",
                data={"action": "note", "note_id": str(design)},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert refused.status_code == 303 and refused.headers["location"].startswith("/signin")
    assert db.execute("SELECT COUNT(*) FROM note_examples").fetchone()[0] == 0
    assert (
        db.execute("SELECT status FROM escalations WHERE id = ?", [escalation]).fetchone()[0]
        == "open"
    )


def test_no_module_on_an_agents_path_reaches_the_queue_or_the_examples():
    """By construction: the tools, the chokepoint, the endpoint and the router import nothing that
    decides a question or writes an example (the console and the command line do)."""
    forbidden = {"server.asking.queue", "server.asking.examples", "server.store.examples"}
    reached = []
    for folder in ("tools", "chokepoint", "http", "router", "answering"):
        for path in (SERVER / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = (
                    [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                    if isinstance(node, ast.ImportFrom)
                    else [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else []
                )
                reached += [(path.name, n) for n in names if n in forbidden]
    assert reached == []
