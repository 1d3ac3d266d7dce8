"""`@tool(pure=True)` is a promise the chokepoint caches on: a pure tool's answer depends only on the
caller's resolved identity, the manifest and the rules in force, so the chokepoint answers it again
for the same identity and revision without running it. Nothing in the decorator can check that, so
this test does: for every lane's caller, over the real HTTP path, it asks every pure tool it sees,
calls each write tool it sees, and asks every pure tool again; the answer must be the one the tool
gives when run afresh (the same call with the cache off). A pure tool that reads what a write
changes (marking `list_evidence` pure, say) fails here, naming the tool and the write. (By shape a
pure tool gets a `PureContext`, with no store to read: `test_facade.py`; this test holds what the
shape cannot, such as a clock.)"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

from server import tools
from tests.conftest import connect, tool_names

SPECS = tools.load_all()
_handles = itertools.count(1)

# A call that succeeds for each write tool of the default club, by the caller's lane (a write tool
# without one here fails the test, naming it: add its example when you add the tool).
WRITES: dict[str, Callable[[], dict[str, object]]] = {
    "apply": lambda: {
        "handle": f"pure-{next(_handles)}",
        "name": "Pure Check",
        "statement": "I check promises.",
    },
    "log_evidence": lambda: {"kind": "portfolio", "title": "A written promise"},
    "update_briefing": lambda: {"topic": "promises", "text": "Kept.", "visibility": "members"},
    "ask": lambda: {"member": "ana", "question": "Is the club open in August?"},
    "amend_mandate": lambda: {"topics": ["databases"]},
    "refund_order": lambda: {"order_id": "4411", "amount": 12.5},
}


async def fresh(club, client, name: str) -> object:
    """`name`'s answer run afresh for this caller: the same call through the same chokepoint, with
    only the cache of pure answers turned off for it."""
    specs = club.live.parley.chokepoint.specs
    kept = specs[name]
    specs[name] = dataclasses.replace(kept, pure=False)
    try:
        return (await client.call_tool(name, {})).structured_content
    finally:
        specs[name] = kept


async def stale_answers(club, token: str | None, done: set[str]) -> list[str]:
    """Pure answers that went stale after a write, for this caller; `done` gains each write that
    succeeded (one a lane refuses, like `apply` from an applicant, changes nothing)."""
    stale = []
    async with connect(club.url, token) as client:
        visible = await tool_names(client)
        pure = [name for name in visible if SPECS[name].pure]
        writes = [name for name in visible if SPECS[name].writes]
        assert pure, "this caller sees no pure tool: the test would check nothing"
        missing = [name for name in writes if name not in WRITES]
        assert missing == [], f"write tools without an example call in WRITES: {missing}"
        for write in writes:
            for name in pure:
                await client.call_tool(name, {})  # remembered for this caller
            written = await client.call_tool(write, WRITES[write]())
            if written.is_error:
                continue
            done.add(write)
            for name in pure:
                again = (await client.call_tool(name, {})).structured_content
                if again != await fresh(club, client, name):
                    stale.append(f"{name} after {write}")
    return stale


async def test_no_pure_tool_answers_stale_after_any_write(club):
    callers = {
        "guest": None,
        "applicant": club.tokens.applicant.token,
        "member": club.tokens.member.token,
        "principal": club.tokens.steward_principal.token,
    }
    done: set[str] = set()
    stale = {
        lane: found
        for lane, token in callers.items()
        if (found := await stale_answers(club, token, done))
    }
    assert stale == {}
    offered = club.manifest().tools
    writes = sorted(name for name, spec in SPECS.items() if spec.writes and name in offered)
    assert [name for name in writes if name not in done] == [], "write tools no caller ran"
