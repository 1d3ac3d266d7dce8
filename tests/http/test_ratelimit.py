"""Per-minute budgets: the limiter's arithmetic, and a real 429 that says when to retry."""

from __future__ import annotations

import httpx2

from server.http.ratelimit import RateLimiter, retry_after_header
from tests.conftest import manifest_copy, running_club

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
ACCEPT = {"Accept": "application/json, text/event-stream"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_minute_of_burst_then_refills_evenly():
    clock = FakeClock()
    limiter = RateLimiter(60, clock=clock)
    assert all(limiter.take("k") is None for _ in range(60))
    wait = limiter.take("k")
    assert wait is not None and 0.99 <= wait <= 1.0
    assert limiter.take("other") is None  # keys are independent
    clock.now += 1.0
    assert limiter.take("k") is None
    assert limiter.take("k") is not None
    assert retry_after_header(0.2) == "1" and retry_after_header(2.1) == "3"


def test_pruning_keeps_memory_bounded():
    clock = FakeClock()
    limiter = RateLimiter(10, clock=clock, max_keys=100)
    for i in range(1000):
        limiter.take(f"k{i}")
    assert len(limiter._buckets) <= 100


async def test_guest_and_token_budgets_answer_429_with_retry_after(tmp_path):
    manifest = manifest_copy(
        tmp_path,
        lambda text: text.replace(
            "guest_requests_per_minute: 120", "guest_requests_per_minute: 3"
        ).replace("token_requests_per_minute: 600", "token_requests_per_minute: 2"),
    )
    with running_club(tmp_path, manifest) as club:
        async with httpx2.AsyncClient() as http:
            codes = [
                (await http.post(club.url, json=INIT, headers=ACCEPT)).status_code for _ in range(2)
            ]
            bad = {**ACCEPT, "Authorization": "Bearer pa_guessing"}
            codes.append((await http.post(club.url, json=INIT, headers=bad)).status_code)
            codes.append((await http.post(club.url, json=INIT, headers=bad)).status_code)
            assert codes == [200, 200, 401, 429]  # failed credentials spend the address's budget
            refused = await http.post(club.url, json=INIT, headers=ACCEPT)
            assert refused.status_code == 429
            assert int(refused.headers["retry-after"]) >= 1
            body = refused.json()
            assert body["error"] == "rate_limited" and "guest lane" in body["error_description"]
            assert "retry after" in body["error_description"]

            member = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
            codes = [
                (await http.post(club.url, json=INIT, headers=member)).status_code for _ in range(3)
            ]
            assert codes == [200, 200, 429]
            # another token has its own budget
            other = {**ACCEPT, "Authorization": f"Bearer {club.tokens.applicant.token}"}
            assert (await http.post(club.url, json=INIT, headers=other)).status_code == 200
