"""Readiness tells the truth about the answering pool: a worker that is starting is ready, every
worker having failed to start is a 503 that names the pool, and stays one while calls keep
replacing them (a replacement of a worker that never started proves nothing until it is ready)."""

from __future__ import annotations

import time

import httpx2

from tests.conftest import connect, running_club

# A model endpoint whose port no socket has: the worker refuses it while it builds its answerer,
# before it ever reports ready (an operator's typo, the same as a missing library or weights file).
BROKEN = {"PARLEY_ANSWERER_URL": "http://127.0.0.1:99999/v1", "PARLEY_ANSWERER_MODEL": "m"}


def _ready(base: str) -> httpx2.Response:
    return httpx2.get(f"{base}/readyz", timeout=5)


async def test_readiness_is_503_naming_the_answering_pool_when_no_worker_can_start(tmp_path):
    with running_club(tmp_path, env=BROKEN) as club:
        deadline = time.monotonic() + 30
        while (answer := _ready(club.live.base)).status_code == 200:
            assert time.monotonic() < deadline, answer.text
            time.sleep(0.1)
        assert answer.status_code == 503, answer.text
        assert "failed to start" in answer.json()["problems"]["answering"], answer.text
        assert _ready(f"{club.live.base}").json()["problems"].keys() == {"answering"}
        async with connect(club.url, club.tokens.member.token) as bruno:
            for _ in range(3):
                # each ask finds its worker dead, tries a fresh one (which fails too) and leaves
                # another starting in its place: that one is no proof the pool can answer
                asked = await bruno.call_tool("ask", {"member": "ana", "question": "Is she in?"})
                assert not asked.is_error, asked
                answer = _ready(club.live.base)
                assert answer.status_code == 503, answer.text
                assert "answering" in answer.json()["problems"], answer.text
        assert httpx2.get(f"{club.live.base}/livez", timeout=5).status_code == 200


async def test_workers_that_are_starting_or_ready_are_ready(tmp_path):
    with running_club(tmp_path) as club:
        answer = _ready(club.live.base)  # at once: the workers are still loading their encoder
        assert answer.status_code == 200, answer.text
        async with connect(club.url, club.tokens.member.token) as bruno:
            asked = await bruno.call_tool("ask", {"member": "ana", "question": "Is she in?"})
            assert not asked.is_error, asked
        assert _ready(club.live.base).status_code == 200
