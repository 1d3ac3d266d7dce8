"""Many open sessions must not make the collector stop every caller: what a request made dies with
it, and what survives is frozen out of the collector's sight until the heap has really grown."""

from __future__ import annotations

import gc
import weakref

import httpx2
import pytest
from starlette.requests import Request

from server.heap import HeapKeeper
from server.http.relay import Relay
from server.http.request_state import RequestState

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _requests_holding_a_caller() -> list[Request | RequestState]:
    return [
        o
        for o in gc.get_objects()
        if isinstance(o, RequestState)
        and (o.caller or o.body)
        or isinstance(o, Request)
        and "parley.caller" in o.scope
    ]


async def test_a_finished_request_leaves_nothing_of_itself_in_the_session_it_used(club):
    # The SDK keeps a session's last message, with its HTTP request, until that session's next one.
    headers = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}},
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(club.url, json=INIT, headers=headers)
        headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        await http.post(
            club.url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=headers,
        )
        for _ in range(2):
            answer = await http.post(club.url, json=call, headers=headers)
            assert (
                answer.status_code == 200
                and answer.json()["result"]["structuredContent"]["lane"] == "member"
            )
        held = _requests_holding_a_caller()
        assert held == [], f"{len(held)} finished request(s) still hold their caller"
        # the session itself lives on and answers again
        again = await http.post(club.url, json={**call, "id": 3}, headers=headers)
        assert again.status_code == 200 and "result" in again.json()


async def test_a_released_relay_reports_the_client_gone_and_refuses_to_send():
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    relay = Relay(receive, send)
    assert (await relay.receive())["type"] == "http.request"
    await relay.send({"type": "http.response.start", "status": 200, "headers": []})
    relay.release()
    assert await relay.receive() == {"type": "http.disconnect"}
    with pytest.raises(RuntimeError, match="after the request ended"):
        await relay.send({"type": "http.response.body", "body": b""})
    assert len(sent) == 1


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def thawed():
    yield
    gc.unfreeze()
    gc.collect()


def test_the_keeper_leaves_a_steady_heap_alone_and_collects_once_it_has_grown(thawed):
    working = [{"n": i} for i in range(50_000)]
    keeper = HeapKeeper(growth=0.05, at_least=0)
    keeper.tick()
    garbage = _Cycle()
    probe = weakref.ref(garbage)
    del garbage
    keeper.tick()  # frozen: a cycle among frozen objects waits for a full pass
    for _ in range(3):  # steady state: each round replaces the working set by as much again
        working = [{"n": i} for i in range(50_000)]
        keeper.tick()
    assert keeper.full_passes == 0
    assert probe() is not None
    grown = [{"n": i} for i in range(int(keeper.baseline * 0.1))]
    keeper.tick()
    assert keeper.full_passes == 1
    assert probe() is None
    assert keeper.baseline >= len(grown)
    del working, grown
