"""Inside an open session, a body that is not a well-formed JSON-RPC message gets the JSON-RPC error
that says what is wrong, from the gate, never a silent 202. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import httpx2
import pytest

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

CASES = [
    (b"{not json", -32700, "Parse error"),
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700, "Parse error"),
    (
        b'{"jsonrpc": "1.0", "id": 2, "method": "ping"}',
        -32600,
        "Invalid Request: not a JSON-RPC 2.0 message",
    ),
    (
        b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}, 7]',
        -32600,
        "Invalid Request: not a JSON-RPC 2.0 message",
    ),
    (
        b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
        -32600,
        "Invalid Request: an id is a string or an integer",
    ),
    (
        b'{"jsonrpc": "2.0", "id": 2.5, "method": "ping"}',
        -32600,
        "Invalid Request: an id is a string or an integer",
    ),
    (b'{"jsonrpc": "2.0", "id": 2, "method": 12}', -32600, "Invalid Request: a method is a string"),
]


@pytest.mark.parametrize("body, code, message", CASES)
async def test_a_malformed_message_in_a_session_is_a_json_rpc_error(club, body, code, message):
    headers = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(club.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        answer = await http.post(
            club.url, content=body, headers={**headers, "mcp-session-id": session}
        )
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert answer.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": code, "message": message},
    }


# A credential parameter in the URL is refused whatever its value: an empty one (a client whose token
# variable was unset) or any spelling of the name, never a silent fall to the guest lane.
@pytest.mark.parametrize(
    "query",
    ["access_token=", "token=", "bearer", "authorization=", "Access_Token=pa_x", "guest=no&TOKEN="],
)
async def test_a_credential_parameter_in_the_url_is_refused_even_empty(club, query):
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.post(f"{club.url}?{query}", json=INIT, headers=ACCEPT)
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert answer.json() == {
        "error": "invalid_request",
        "error_description": "send the credential in the Authorization header, never in the URL",
    }
    assert "parley-lane" not in answer.headers


def _unavailable_count(text: str) -> float:
    for line in text.splitlines():
        if line.startswith('parley_requests_total{lane="none",outcome="unavailable"}'):
            return float(line.split()[-1])
    return 0.0


async def test_a_store_that_cannot_be_reached_is_a_503_to_retry_counted_and_then_recovered(
    club, monkeypatch
):
    from server.store.database import StoreUnavailable

    def unreachable(authorization, *at):  # at: the revision and where the last use waits
        raise StoreUnavailable("the store cannot be reached")

    headers = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
    async with httpx2.AsyncClient(timeout=30) as http:
        before = _unavailable_count((await http.get(f"{club.live.base}/metrics")).text)
        with monkeypatch.context() as patch:
            patch.setattr(club.live.parley.access, "from_header", unreachable)
            for sent in (
                headers,
                ACCEPT,
            ):  # with a credential or without: no guess about the caller
                answer = await http.post(club.url, json=INIT, headers=sent)
                assert answer.status_code == 503, (answer.status_code, answer.text)
                assert answer.headers["retry-after"] == "1" and "parley-lane" not in answer.headers
                assert answer.json() == {
                    "error": "temporarily_unavailable",
                    "error_description": "the store cannot be reached",
                }
        after = _unavailable_count((await http.get(f"{club.live.base}/metrics")).text)
        assert after == before + 2
        recovered = await http.post(club.url, json=INIT, headers=headers)
    assert recovered.status_code == 200 and recovered.headers["parley-lane"] == "member"


async def test_a_refused_credential_is_counted_as_rejected(club):
    labels = 'parley_requests_total{lane="none",outcome="rejected"} '

    def rejected(text: str) -> float:
        return next(
            (float(line.split()[-1]) for line in text.splitlines() if line.startswith(labels)), 0.0
        )

    async with httpx2.AsyncClient(timeout=30) as http:
        before = rejected((await http.get(f"{club.live.base}/metrics")).text)
        answer = await http.post(
            club.url, json=INIT, headers={**ACCEPT, "Authorization": "Bearer pa_neverMinted"}
        )
        assert answer.status_code == 401
        assert rejected((await http.get(f"{club.live.base}/metrics")).text) == before + 1


async def test_another_callers_session_is_a_json_rpc_session_not_found(club):
    member = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
    applicant = {**ACCEPT, "Authorization": f"Bearer {club.tokens.applicant.token}"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    async with httpx2.AsyncClient(timeout=30) as http:
        session = (await http.post(club.url, json=INIT, headers=member)).headers["mcp-session-id"]
        for headers in (applicant, ACCEPT):
            answer = await http.post(
                club.url, json=ping, headers={**headers, "mcp-session-id": session}
            )
            assert (
                answer.status_code == 404 and answer.headers["content-type"] == "application/json"
            )
            assert answer.json() == {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Session not found"},
            }


async def test_an_oauth_shaped_credential_is_verified_in_a_worker_thread_never_on_the_event_loop(
    club, monkeypatch
):
    """Verifying a JWT may wait on an issuer's keys: admission of such a credential leaves the loop
    that serves every connection (a Parley token on the embedded store is resolved in place)."""
    import threading

    access = club.live.parley.access
    seen: dict[str, threading.Thread] = {}
    resolve = access.from_header

    def watched(authorization, *at):  # at: the revision and where the last use waits
        seen[authorization] = threading.current_thread()
        return resolve(authorization, *at)

    monkeypatch.setattr(access, "from_header", watched)
    jwt_shaped = "Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
    async with httpx2.AsyncClient(timeout=30) as http:
        refused = await http.post(
            club.url, json=INIT, headers={**ACCEPT, "Authorization": jwt_shaped}
        )
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_token"
    assert seen[jwt_shaped] is not club.live.thread
