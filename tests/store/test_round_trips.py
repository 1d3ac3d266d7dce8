"""Round trips to PostgreSQL a request makes, counted by Parley's own statement counter: a guest's
and an OAuth access token's `whoami` make one each once the token was seen (the budget's statement
reads the revision; the audit writer writes the audit rows in a statement of its own, after the
answer), as a remembered Parley token's does (tests/store/test_store_backends.py)."""

from __future__ import annotations

import httpx2
import pytest

from tests.conftest import connect, running_club
from tests.oauth.test_oauth_flow import authorize, code_of, pkce, redeem, register


def _sample(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


async def _whoami_trips(url: str, token: str | None, lane: str) -> tuple[float, float]:
    """Statements made while serving requests, and requests admitted, over 20 whoami calls after a
    first (which may read what the process has not seen yet)."""
    async with connect(url, token) as client:
        assert not (await client.call_tool("whoami", {})).is_error
        statements = _sample("parley_store_statements_total", source="request")
        admitted = _sample("parley_requests_total", lane=lane, outcome="admitted")
        for _ in range(20):
            answer = await client.call_tool("whoami", {})
            assert not answer.is_error and answer.structured_content["lane"] == lane
        made = _sample("parley_store_statements_total", source="request") - statements
        requests = _sample("parley_requests_total", lane=lane, outcome="admitted") - admitted
    return made, requests


async def _access_token(club) -> tuple[str, str]:
    """An access token the club's own authorization server issued (through its pages), and its client."""
    async with httpx2.AsyncClient(timeout=30) as http:
        client = await register(http, club.live.base)
        verifier, challenge = pkce()
        code = code_of(await authorize(club, http, client["client_id"], challenge))
        redeemed = await redeem(http, club.live.base, client["client_id"], code, verifier)
        return redeemed.json()["access_token"], client["client_id"]


@pytest.mark.parametrize("credential", ["guest", "oauth"])
async def test_on_postgresql_a_whoami_is_one_round_trip_and_every_call_is_audited(
    credential, postgres, tmp_path
):
    url = postgres.new_database()
    try:
        with running_club(tmp_path, env={"PARLEY_DATABASE_URL": url}) as club:
            if credential == "guest":
                token, lane = None, "guest"
            else:
                token, lane = (await _access_token(club))[0], "member"
            made, requests = await _whoami_trips(club.url, token, lane)
            assert requests >= 20 and made == requests, (made, requests)
            db = club.db()
            rows = db.execute("SELECT count(*) FROM audit WHERE tool = 'whoami'").fetchone()[0]
            assert rows == 21  # not one lost, not one written twice
    finally:
        postgres.drop(url)


async def test_on_postgresql_a_remembered_oauth_token_is_refused_on_the_request_after_its_grant_is_revoked(
    postgres, tmp_path
):
    """The grant is kept per revision, and revoking it moves the revision: no request in between."""
    url = postgres.new_database()
    try:
        with running_club(tmp_path, env={"PARLEY_DATABASE_URL": url}) as club:
            access, client_id = await _access_token(club)
            async with connect(club.url, access) as client:
                for _ in range(3):  # seen, then answered from what the resolver keeps
                    assert not (await client.call_tool("whoami", {})).is_error
            assert club.live.parley.access.resolver.remembered(f"Bearer {access}") is not None
            headers = {
                "Authorization": f"Bearer {access}",
                "Accept": "application/json, text/event-stream",
            }
            async with httpx2.AsyncClient(timeout=30) as http:
                revoked = await http.post(
                    club.live.base + "/oauth/revoke",
                    data={
                        "token": access,
                        "token_type_hint": "access_token",
                        "client_id": client_id,
                    },
                )
                assert revoked.status_code == 200
                probe = await http.post(
                    club.url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}
                )
            assert probe.status_code == 401
            assert "grant was revoked" in probe.json()["error_description"]
    finally:
        postgres.drop(url)
